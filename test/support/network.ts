import type { EntityManager } from '@mikro-orm/postgresql';
import { Role } from '../../src/modules/user/role';
import { Lead } from '../../src/modules/lead/lead.entity';
import type { CompanyRetailerLocation } from '../../src/modules/company-retailer-location/company-retailer-location.entity';
import * as f from './factories';

/**
 * A network where every role of company A and retailer R has something in its scope and, as near as
 * possible, something just outside it:
 *
 * - company A: territories north and south; company retailers crA (A-R, territory north) and crA2 (A-R2);
 *   crlIn (crA, north, store rl1 of R), crlSameCr (crA, north, rl2 of R), crlSouth (crA, south, rl3 of R),
 *   crlOtherRetailer (crA2, south, rl4 of R2), crlInherited (crA, no territory of its own: north by its
 *   company retailer, rl5 of R);
 * - company B: crB (B-R2) with crlB (rl6 of R2);
 * - one user per role: the territory manager has north, the retailer manager crA, the location user and
 *   sales associate crlIn, the store manager rl1.
 */
export async function world(em: EntityManager) {
  const A = await f.company(em, 'Acme');
  const B = await f.company(em, 'Bolt');
  const R = await f.retailer(em, 'Riverside Outfitters');
  const R2 = await f.retailer(em, 'Summit Supply');
  const north = await f.territory(em, A, 'North');
  const south = await f.territory(em, A, 'South');
  const crA = await f.companyRetailer(em, A, R, { territory: north });
  const crA2 = await f.companyRetailer(em, A, R2);
  const crB = await f.companyRetailer(em, B, R2);
  const rl1 = await f.retailerLocation(em, R, { name: 'Riverside Downtown' });
  const crlIn = await f.crl(em, crA, { territory: north, retailerLocation: rl1 });
  const crlSameCr = await f.crl(em, crA, { territory: north });
  const crlSouth = await f.crl(em, crA, { territory: south });
  const crlOtherRetailer = await f.crl(em, crA2, { territory: south });
  const crlInherited = await f.crl(em, crA);
  const crlB = await f.crl(em, crB);
  const users = {
    [Role.CompanyAdmin]: await f.userWithKey(em, Role.CompanyAdmin, A),
    [Role.CompanyTerritoryManager]: await f.userWithKey(em, Role.CompanyTerritoryManager, A, { territory: north }),
    [Role.CompanyRetailerManager]: await f.userWithKey(em, Role.CompanyRetailerManager, A, { companyRetailers: [crA] }),
    [Role.CompanyLocationUser]: await f.userWithKey(em, Role.CompanyLocationUser, A, { companyRetailerLocations: [crlIn] }),
    [Role.CompanySalesAssociate]: await f.userWithKey(em, Role.CompanySalesAssociate, A, { companyRetailerLocations: [crlIn] }),
    [Role.RetailerAdmin]: await f.userWithKey(em, Role.RetailerAdmin, R),
    [Role.RetailerStoreManager]: await f.userWithKey(em, Role.RetailerStoreManager, R, { retailerLocations: [rl1] }),
    [Role.PlatformOperator]: await f.userWithKey(em, Role.PlatformOperator, null),
  } as Record<Role, f.UserWithKey>;
  const keys = Object.fromEntries(Object.entries(users).map(([role, u]) => [role, u.key])) as Record<Role, string>;
  return { A, B, R, R2, north, south, crA, crA2, crB, rl1, crlIn, crlSameCr, crlSouth, crlOtherRetailer, crlInherited, crlB, users, keys };
}

export type World = Awaited<ReturnType<typeof world>>;

/** A lead of the CRL's company assigned to it. */
export async function assignedLead(em: EntityManager, crl: CompanyRetailerLocation): Promise<Lead> {
  const lead = em.create(Lead, { name: 'Pat Doe', ownerCompany: crl.company, assignee: crl });
  await em.flush();
  return lead;
}
