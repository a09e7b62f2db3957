import { visibleType } from '../../access/visibility';
import { crlPolicy, readsNetworkNames } from './company-retailer-location.policy';
import { CompanyRetailerLocation } from './company-retailer-location.entity';
import type { SearchDocument, SearchField } from '../../search/types';

const scope = crlScopeFields('crl');

/**
 * What a CRL list can search, filter, order and aggregate on. Name, address and territory are read as
 * they are served: the retailer location's name when the CRL has none, the linked retailer location's
 * address, the company retailer's territory when the CRL has none.
 */
export const crlSearch: SearchDocument = {
  name: 'company_retailer_locations',
  sources: [
    { table: 'company_retailer_locations', ids: 'select ($1).id' },
    { table: 'company_retailers', ids: 'select x.id from company_retailer_locations x where x.company_retailer_id = ($1).id' },
    { table: 'retailer_locations', ids: 'select x.id from company_retailer_locations x where x.retailer_location_id = ($1).id' },
    { table: 'companies', ids: 'select x.id from company_retailer_locations x where x.company_id = ($1).id' },
    { table: 'retailers', ids: 'select x.id from company_retailer_locations x join company_retailers cr on cr.id = x.company_retailer_id where cr.retailer_id = ($1).id' },
    { table: 'territories', ids: 'select x.id from company_retailer_locations x join company_retailers cr on cr.id = x.company_retailer_id where x.territory_id = ($1).id or cr.territory_id = ($1).id' },
    { table: 'company_store_types', ids: 'select x.id from company_retailer_locations x where x.company_store_type_id = ($1).id' },
    { table: 'locations', ids: 'select x.id from company_retailer_locations x left join retailer_locations rl on rl.id = x.retailer_location_id where x.physical_address_id = ($1).id or rl.physical_address_id = ($1).id' },
  ],
  // Each join only in the statements that read its alias (the scope and the list order read none: a
  // retailer admin's total is an index-only count of its CRLs, a page an index range).
  from: 'company_retailer_locations crl',
  joins: [
    ...scope.joinList,
    { alias: 'co', sql: 'left join companies co on co.id = crl.company_id' },
    { alias: 'r', sql: 'left join retailers r on r.id = crl_cr.retailer_id' },
    { alias: 't', sql: 'left join territories t on t.id = coalesce(crl.territory_id, crl_cr.territory_id)' },
    { alias: 'st', sql: 'left join company_store_types st on st.id = crl.company_store_type_id' },
    { alias: 'addr', sql: 'left join locations addr on addr.id = (case when crl_rl.id is null then crl.physical_address_id else crl_rl.physical_address_id end)' },
  ],
  alias: 'crl',
  // A company admin's and a retailer admin's unfiltered totals (Migration20261129120000_crl_key_counts).
  counts: { table: 'crl_key_counts', fields: ['company_id', 'retailer_id'] },
  fields: {
    ...scope.fields,
    name: { sql: "coalesce(nullif(crl.name, ''), crl_rl.name)", type: 'string', text: true },
    retailer_location_name: { sql: 'crl_rl.name', type: 'string', text: true },
    company_name: { sql: 'co.name', type: 'string', text: true },
    company_retailer_name: { sql: 'crl_cr.name', type: 'string', text: true },
    retailer_name: { sql: 'r.name', type: 'string', text: true },
    territory_name: { sql: 't.name', type: 'string', text: true, readableBy: readsNetworkNames },
    company_store_type_id: { sql: 'crl.company_store_type_id', type: 'uuid' },
    store_type: { sql: 'st.name', type: 'string', text: true, readableBy: readsNetworkNames },
    sending_leads: { sql: 'crl.sending_leads', type: 'boolean' },
    receiving_leads: { sql: 'crl.receiving_leads', type: 'boolean' },
    record_calls: { sql: 'crl.record_calls', type: 'boolean' },
    mask_emails: { sql: 'crl.mask_emails', type: 'boolean' },
    delivery_radius: { sql: 'crl.delivery_radius', type: 'number' },
    website: { sql: 'crl.website', type: 'string' },
    place_id: { sql: 'crl.place_id', type: 'string' },
    timezone: { sql: 'crl.timezone', type: 'string' },
    postal_code: { sql: 'addr.postal_code', type: 'string', text: true },
    city: { sql: 'addr.city', type: 'string', text: true },
    province: { sql: 'addr.province', type: 'string', text: true },
    country: { sql: 'addr.country', type: 'string', text: true },
    created_at: { sql: 'crl.created_at', type: 'date' },
    updated_at: { sql: 'crl.updated_at', type: 'date' },
  },
};

/**
 * The SQL of the fields `crlScope` reads, for a document whose FROM clause holds a CRL under alias `crl`
 * followed by `joins`. A CRL's territory is its own, else its company retailer's: a store without a
 * territory of its own is in its retailer's territory (the serialized `territory_id` says the same).
 * `companyRetailer` is the alias of the CRL's company retailer where the statement already reads it (the
 * company retailer list, whose CRL fields read the CRLs under its row), instead of a join.
 */
export function crlScopeFields(
  crl: string,
  prefix = '',
  companyRetailer?: string,
): { joins: string; joinList: Array<{ alias: string; sql: string }>; fields: Record<string, SearchField> } {
  const cr = companyRetailer ?? `${crl}_cr`;
  const rl = `${crl}_rl`;
  const joinList = [
    ...(companyRetailer ? [] : [{ alias: cr, sql: `left join company_retailers ${cr} on ${cr}.id = ${crl}.company_retailer_id` }]),
    { alias: rl, sql: `left join retailer_locations ${rl} on ${rl}.id = ${crl}.retailer_location_id` },
  ];
  return {
    joins: joinList.map((j) => j.sql).join(' '),
    joinList,
    fields: {
      [`${prefix}id`]: { sql: `${crl}.id`, type: 'uuid' },
      [`${prefix}company_id`]: { sql: `${crl}.company_id`, type: 'uuid' },
      [`${prefix}territory_id`]: { sql: `coalesce(${crl}.territory_id, ${cr}.territory_id)`, type: 'uuid' },
      [`${prefix}company_retailer_id`]: { sql: `${crl}.company_retailer_id`, type: 'uuid' },
      // Kept on the CRL row by triggers (Migration20261124162000_crl_retailer_key): its retailer location's.
      [`${prefix}retailer_id`]: { sql: `${crl}.retailer_id`, type: 'uuid' },
      [`${prefix}retailer_location_id`]: { sql: `${crl}.retailer_location_id`, type: 'uuid' },
    },
  };
}

/** Who sees a CompanyRetailerLocation wherever it is reached (src/access/visibility.ts): its policy's scope. */
export const crlVisible = visibleType('CompanyRetailerLocation', CompanyRetailerLocation, crlSearch, crlPolicy);
