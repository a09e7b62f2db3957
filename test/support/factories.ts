import type { EntityManager } from '@mikro-orm/postgresql';
import { generatePlainKey, hashKey, keyPrefix } from '../../src/auth/api-keys';
import { Company } from '../../src/modules/company/company.entity';
import { Retailer } from '../../src/modules/retailer/retailer.entity';
import { User } from '../../src/modules/user/user.entity';
import { ApiKey } from '../../src/modules/user/api-key.entity';
import { Role, isCompanyRole, isRetailerRole } from '../../src/modules/user/role';
import { Product } from '../../src/modules/product/product.entity';
import { Territory } from '../../src/modules/territory/territory.entity';
import { CompanyRetailer } from '../../src/modules/company-retailer/company-retailer.entity';
import { CompanyRetailerLocation } from '../../src/modules/company-retailer-location/company-retailer-location.entity';
import { RetailerLocation } from '../../src/modules/retailer-location/retailer-location.entity';
import { Location } from '../../src/modules/contact/location.entity';

let seq = 0;
const next = () => ++seq;

export async function company(em: EntityManager, name = `Company ${next()}`): Promise<Company> {
  const c = em.create(Company, { name });
  await em.flush();
  return c;
}

export async function retailer(em: EntityManager, name = `Retailer ${next()}`): Promise<Retailer> {
  const r = em.create(Retailer, { name });
  await em.flush();
  return r;
}

export async function territory(em: EntityManager, owner: Company, name = `Territory ${next()}`): Promise<Territory> {
  const t = em.create(Territory, { company: owner, name });
  await em.flush();
  return t;
}

export interface UserWithKey {
  user: User;
  key: string;
}

/** A user of `role` in `org` (a company or retailer) with one API key. */
export async function userWithKey(
  em: EntityManager,
  role: Role,
  org: Company | Retailer | null,
  extra: Partial<Pick<User, 'territory'>> & {
    companyRetailers?: CompanyRetailer[];
    companyRetailerLocations?: CompanyRetailerLocation[];
    retailerLocations?: RetailerLocation[];
  } = {},
): Promise<UserWithKey> {
  const user = em.create(User, {
    email: `user${next()}@example.test`,
    name: `User ${seq}`,
    role,
    company: isCompanyRole(role) ? (org as Company) : null,
    retailer: isRetailerRole(role) ? (org as Retailer) : null,
    territory: extra.territory ?? null,
  });
  extra.companyRetailers?.forEach((x) => user.companyRetailers.add(x));
  extra.companyRetailerLocations?.forEach((x) => user.companyRetailerLocations.add(x));
  extra.retailerLocations?.forEach((x) => user.retailerLocations.add(x));
  const key = generatePlainKey();
  em.create(ApiKey, { user, keyHash: hashKey(key), prefix: keyPrefix(key), label: 'test' });
  await em.flush();
  return { user, key };
}

export async function product(em: EntityManager, owner: Company, data: Partial<Pick<Product, 'sku' | 'name' | 'category' | 'externalId'>> = {}): Promise<Product> {
  const n = next();
  const p = em.create(Product, { company: owner, sku: data.sku ?? `SKU-${n}`, name: data.name ?? `Product ${n}`, category: data.category ?? null, externalId: data.externalId ?? null });
  await em.flush();
  return p;
}

export async function location(em: EntityManager, data: Partial<Location> = {}): Promise<Location> {
  const l = em.create(Location, { city: 'Portland', province: 'OR', country: 'US', postalCode: '97205', ...data });
  await em.flush();
  return l;
}

export async function companyRetailer(em: EntityManager, owner: Company, seller: Retailer, data: Partial<CompanyRetailer> = {}): Promise<CompanyRetailer> {
  const cr = em.create(CompanyRetailer, { company: owner, retailer: seller, name: seller.name, ...data });
  await em.flush();
  return cr;
}

export async function retailerLocation(em: EntityManager, seller: Retailer, data: Partial<RetailerLocation> = {}): Promise<RetailerLocation> {
  const rl = em.create(RetailerLocation, { retailer: seller, name: `Store ${next()}`, ...data });
  await em.flush();
  return rl;
}

/** A CRL under `cr`, linked to a new retailer location of the same retailer unless one is given. */
export async function crl(
  em: EntityManager,
  cr: CompanyRetailer,
  data: Partial<CompanyRetailerLocation> = {},
): Promise<CompanyRetailerLocation> {
  const rl = data.retailerLocation === undefined ? await retailerLocation(em, cr.retailer) : data.retailerLocation;
  const c = em.create(CompanyRetailerLocation, { company: cr.company, companyRetailer: cr, retailerLocation: rl, ...data });
  await em.flush();
  return c;
}

/** A small network: one company with a retailer, two stores (CRLs) in different territories. */
export async function network(em: EntityManager) {
  const acme = await company(em, `Acme ${next()}`);
  const seller = await retailer(em, `Dealer ${next()}`);
  const north = await territory(em, acme, 'North');
  const south = await territory(em, acme, 'South');
  const cr = await companyRetailer(em, acme, seller);
  const storeNorth = await crl(em, cr, { territory: north });
  const storeSouth = await crl(em, cr, { territory: south });
  return { company: acme, retailer: seller, north, south, companyRetailer: cr, storeNorth, storeSouth };
}
