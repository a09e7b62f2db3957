import { visibleType } from '../../access/visibility';
import { retailerPolicy } from './retailer.policy';
import { Retailer } from './retailer.entity';
import type { SearchDocument } from '../../search/types';

export const retailerSearch: SearchDocument = {
  name: 'retailers',
  from: 'retailers r',
  alias: 'r',
  fields: {
    id: { sql: 'r.id', type: 'uuid' },
    name: { sql: 'r.name', type: 'string', text: true },
    company_ids: { sql: 'array(select x.company_id from company_retailers x where x.retailer_id = r.id)', type: 'uuid', array: true, scopeOnly: true },
    created_at: { sql: 'r.created_at', type: 'date' },
    updated_at: { sql: 'r.updated_at', type: 'date' },
  },
};


/** Who sees a Retailer wherever it is reached (src/access/visibility.ts): its policy's scope. */
export const retailerVisible = visibleType('Retailer', Retailer, retailerSearch, retailerPolicy);
