import { Role } from './role';

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
  /** The API key the request was authenticated with (none for work done without a request). */
  apiKeyId?: string;
}

/** The user id of `organisationAdmin`'s caller: no user (nothing it writes names a user). */
export const ORGANISATION_USER_ID = '00000000-0000-0000-0000-000000000000';

/** The user a write names as its author: none for work done on an organisation's behalf. */
export function authorOf(caller: Caller): string | null {
  return caller.userId === ORGANISATION_USER_ID ? null : caller.userId;
}

/**
 * The admin of a company or a retailer as a caller, for work done on the organisation's behalf without a
 * user (webhook deliveries, exports): it sees what the organisation's admin sees, by the same read rules.
 */
export function organisationAdmin(owner: { companyId?: string | null; retailerId?: string | null }): Caller {
  return {
    userId: ORGANISATION_USER_ID,
    role: owner.companyId ? Role.CompanyAdmin : Role.RetailerAdmin,
    companyId: owner.companyId ?? null,
    retailerId: owner.companyId ? null : (owner.retailerId ?? null),
    territoryId: null,
    companyRetailerIds: [],
    companyRetailerLocationIds: [],
    retailerLocationIds: [],
  };
}
