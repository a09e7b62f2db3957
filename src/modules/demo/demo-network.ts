import { Role } from '../user/role';

/*
 * The demo network as data: one company (Cascade Cycles) selling through one retailer (Summit Sports)
 * with four stores. Each module's demo part (`<resource>.demo.ts`) creates its records from these; a
 * store's row feeds four of them (its location, its place in the company's network, its stock, its leads).
 */

export const COMPANY = 'Cascade Cycles';
export const RETAILER = 'Summit Sports';
export const COLLECTION = 'Trail & Gravel';

export const STORE_TYPES = [
  { name: 'Flagship', boost: 2 },
  { name: 'Premier Dealer', boost: 1 },
  { name: 'Dealer', boost: 0 },
];

/** Enough leads for lists, facets and the IDE to show something on the first start. */
export const DEMO_LEADS = 300;

export const TERRITORIES = ['Pacific Northwest', 'Mountain', 'Canada'];

export const STORES = [
  { slug: 'portland', areaCode: '503', street: '921 SW Morrison St', city: 'Portland', province: 'OR', postalCode: '97205', country: 'US', latitude: 45.5197, longitude: -122.681, timezone: 'America/Los_Angeles', phone: '+15035550142', territory: 'Pacific Northwest', storeType: 'Flagship', sundayOpen: true },
  { slug: 'seattle', areaCode: '206', street: '1520 4th Ave', city: 'Seattle', province: 'WA', postalCode: '98101', country: 'US', latitude: 47.6109, longitude: -122.3374, timezone: 'America/Los_Angeles', phone: '+12065550123', territory: 'Pacific Northwest', storeType: 'Premier Dealer', sundayOpen: true },
  { slug: 'denver', areaCode: '303', street: '1701 Wynkoop St', city: 'Denver', province: 'CO', postalCode: '80202', country: 'US', latitude: 39.7536, longitude: -104.9997, timezone: 'America/Denver', phone: '+13035550177', territory: 'Mountain', storeType: 'Dealer', sundayOpen: false },
  { slug: 'vancouver', areaCode: '604', street: '1055 W Georgia St', city: 'Vancouver', province: 'BC', postalCode: 'V6E 3P3', country: 'CA', latitude: 49.2855, longitude: -123.1226, timezone: 'America/Vancouver', phone: '+16045550199', territory: 'Canada', storeType: 'Premier Dealer', sundayOpen: true },
];

export const PRODUCTS = [
  { sku: 'CC-RIDGE-29', name: 'Ridgeline 29 Trail Bike', category: 'Bikes', externalId: 'NW-1001', inCollection: true },
  { sku: 'CC-GRAVEL-700', name: 'Gravel Runner 700c', category: 'Bikes', externalId: 'NW-1002', inCollection: true },
  { sku: 'CC-HELMET-M', name: 'Summit MIPS Helmet', category: 'Helmets', externalId: 'NW-2001', inCollection: false },
  { sku: 'CC-LIGHT-800', name: 'Beacon 800 Headlight', category: 'Accessories', externalId: 'NW-3001', inCollection: false },
];

/** One user of every role; the user part (src/modules/user/user.demo.ts) makes their assignments. */
export const PEOPLE: Array<{ role: Role; email: string; name: string }> = [
  { role: Role.PlatformOperator, email: 'operator@leadnet.example', name: 'Pat Operator' },
  { role: Role.CompanyAdmin, email: 'admin@cascade-cycles.example', name: 'Casey Admin' },
  { role: Role.CompanyTerritoryManager, email: 'pnw.manager@cascade-cycles.example', name: 'Terry Northwest' },
  { role: Role.CompanyRetailerManager, email: 'retail.manager@cascade-cycles.example', name: 'Robin Retail' },
  { role: Role.CompanyLocationUser, email: 'portland.desk@cascade-cycles.example', name: 'Lou Portland' },
  { role: Role.CompanySalesAssociate, email: 'sales@cascade-cycles.example', name: 'Sam Sales' },
  { role: Role.RetailerAdmin, email: 'admin@summit-sports.example', name: 'Alex Summit' },
  { role: Role.RetailerStoreManager, email: 'seattle.manager@summit-sports.example', name: 'Morgan Seattle' },
];
