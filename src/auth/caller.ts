import type { Role } from '../modules/user/role';

/** The authenticated user behind a request, with the scope assignment ids its role uses. */
export interface Caller {
  userId: string;
  role: Role;
  companyId: string | null;
  retailerId: string | null;
  territoryId: string | null;
  companyRetailerIds: string[];
  companyRetailerLocationIds: string[];
  retailerLocationIds: string[];
}
