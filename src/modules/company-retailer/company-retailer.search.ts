import { visibleType } from '../../access/visibility';
import { companyRetailerPolicy } from './company-retailer.policy';
import { CompanyRetailer } from './company-retailer.entity';
import type { SearchDocument, SearchField } from '../../search/types';
import { readsNetworkNames, seesEveryStore } from '../company-retailer-location/company-retailer-location.policy';
import { crlScopeFields } from '../company-retailer-location/company-retailer-location.search';

const crls = crlScopeFields('x', 'crl_', 'cr');

/**
 * How many CRLs the company retailer `crSql` (a column of an outer statement) has: the sum of its kept
 * count's slots (Migration20261129100000_company_retailer_location_counts), exact in any snapshot.
 */
export const keptLocationsCount = (crSql: string) =>
  `(select coalesce(sum(k.n), 0)::int from company_retailer_location_counts k where k.company_retailer_id = ${crSql})`;
/** The CRLs of the company retailer `cr`, as a correlated FROM clause. */
const itsCrls = (extraJoin = '') => `company_retailer_locations x ${crls.joins} ${extraJoin} where x.company_retailer_id = cr.id`;
/**
 * An array field of the distinct values of an expression over the CRLs of the company retailer `cr` (a
 * facet counts each company retailer once), whose conditions are semi-joins to the CRLs (`each`).
 */
const underIt = (sql: string, extraJoin = ''): Pick<SearchField, 'sql' | 'array' | 'each'> => ({
  sql: `array(select distinct ${sql} from ${itsCrls(extraJoin)})`,
  array: true,
  each: { rows: itsCrls(extraJoin), value: sql },
});

/** What a company retailer list can search, filter, order and aggregate on. */
export const companyRetailerSearch: SearchDocument = {
  name: 'company_retailers',
  sources: [
    { table: 'company_retailers', ids: 'select ($1).id' },
    { table: 'companies', ids: 'select cr.id from company_retailers cr where cr.company_id = ($1).id' },
    { table: 'retailers', ids: 'select cr.id from company_retailers cr where cr.retailer_id = ($1).id' },
    { table: 'territories', ids: 'select cr.id from company_retailers cr where cr.territory_id = ($1).id or cr.id in (select x.company_retailer_id from company_retailer_locations x where x.territory_id = ($1).id)' },
    { table: 'locations', ids: 'select cr.id from company_retailers cr where cr.physical_address_id = ($1).id' },
    { table: 'company_retailer_locations', ids: 'select ($1).company_retailer_id' },
    { table: 'company_store_types', ids: 'select x.company_retailer_id from company_retailer_locations x where x.company_store_type_id = ($1).id' },
    { table: 'retailer_locations', ids: 'select x.company_retailer_id from company_retailer_locations x where x.retailer_location_id = ($1).id' },
  ],
  from: `company_retailers cr
    join companies co on co.id = cr.company_id
    join retailers r on r.id = cr.retailer_id
    left join territories t on t.id = cr.territory_id
    left join locations addr on addr.id = cr.physical_address_id`,
  alias: 'cr',
  fields: {
    id: { sql: 'cr.id', type: 'uuid' },
    name: { sql: 'cr.name', type: 'string', text: true },
    company_id: { sql: 'cr.company_id', type: 'uuid' },
    company_name: { sql: 'co.name', type: 'string', text: true },
    retailer_id: { sql: 'cr.retailer_id', type: 'uuid' },
    retailer_name: { sql: 'r.name', type: 'string', text: true },
    territory_id: { sql: 'cr.territory_id', type: 'uuid' },
    territory_name: { sql: 't.name', type: 'string', text: true, readableBy: readsNetworkNames },
    sending_leads: { sql: 'cr.sending_leads', type: 'boolean' },
    receiving_leads: { sql: 'cr.receiving_leads', type: 'boolean' },
    is_cc: { sql: 'cr.is_cc', type: 'boolean' },
    type: { sql: 'cr.type', type: 'string' },
    postal_code: { sql: 'addr.postal_code', type: 'string', text: true },
    city: { sql: 'addr.city', type: 'string', text: true },
    province: { sql: 'addr.province', type: 'string', text: true },
    country: { sql: 'addr.country', type: 'string', text: true },
    // Over every CRL under it: only a company admin sees them all, so only it reads these.
    retailer_locations_count: {
      sql: keptLocationsCount('cr.id'),
      type: 'number',
      readableBy: seesEveryStore,
    },
    company_store_type_id: { ...underIt('x.company_store_type_id'), type: 'uuid', readableBy: seesEveryStore },
    store_type: { ...underIt('st.name', 'join company_store_types st on st.id = x.company_store_type_id'), type: 'string', readableBy: seesEveryStore },
    created_at: { sql: 'cr.created_at', type: 'date' },
    updated_at: { sql: 'cr.updated_at', type: 'date' },
    // The CRLs under it, for the scope of the roles that see company retailers through their stores;
    // the caller may not see them all, so its where, order, aggs and q never read them.
    ...Object.fromEntries(
      Object.entries(crls.fields).map(([name, f]): [string, SearchField] => [name, { ...underIt(f.sql), type: f.type, scopeOnly: true }]),
    ),
  },
};


/** Who sees a CompanyRetailer wherever it is reached (src/access/visibility.ts): its policy's scope. */
export const companyRetailerVisible = visibleType('CompanyRetailer', CompanyRetailer, companyRetailerSearch, companyRetailerPolicy);
