import { visibleType } from '../../access/visibility';
import { retailerLocationPolicy } from './retailer-location.policy';
import { RetailerLocation } from './retailer-location.entity';
import type { SearchDocument } from '../../search/types';

export const retailerLocationSearch: SearchDocument = {
  name: 'retailer_locations',
  from: `retailer_locations rl
    join retailers r on r.id = rl.retailer_id
    left join locations addr on addr.id = rl.physical_address_id`,
  alias: 'rl',
  fields: {
    id: { sql: 'rl.id', type: 'uuid' },
    name: { sql: 'rl.name', type: 'string', text: true },
    retailer_id: { sql: 'rl.retailer_id', type: 'uuid' },
    retailer_name: { sql: 'r.name', type: 'string', text: true },
    website: { sql: 'rl.website', type: 'string' },
    place_id: { sql: 'rl.place_id', type: 'string' },
    timezone: { sql: 'rl.timezone', type: 'string' },
    postal_code: { sql: 'addr.postal_code', type: 'string', text: true },
    city: { sql: 'addr.city', type: 'string', text: true },
    province: { sql: 'addr.province', type: 'string', text: true },
    country: { sql: 'addr.country', type: 'string', text: true },
    company_ids: { sql: 'array(select x.company_id from company_retailers x where x.retailer_id = rl.retailer_id)', type: 'uuid', array: true, scopeOnly: true },
    created_at: { sql: 'rl.created_at', type: 'date' },
    updated_at: { sql: 'rl.updated_at', type: 'date' },
  },
};


/** Who sees a RetailerLocation wherever it is reached (src/access/visibility.ts): its policy's scope. */
export const retailerLocationVisible = visibleType('RetailerLocation', RetailerLocation, retailerLocationSearch, retailerLocationPolicy);
