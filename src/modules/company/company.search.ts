import { visibleType } from '../../access/visibility';
import { companyPolicy } from './company.policy';
import { Company } from './company.entity';
import type { SearchDocument } from '../../search/types';

export const companySearch: SearchDocument = {
  name: 'companies',
  from: 'companies c',
  alias: 'c',
  fields: {
    id: { sql: 'c.id', type: 'uuid' },
    name: { sql: 'c.name', type: 'string', text: true },
    retailer_ids: { sql: 'array(select x.retailer_id from company_retailers x where x.company_id = c.id)', type: 'uuid', array: true, scopeOnly: true },
    created_at: { sql: 'c.created_at', type: 'date' },
    updated_at: { sql: 'c.updated_at', type: 'date' },
  },
};


/** Who sees a Company wherever it is reached (src/access/visibility.ts): its policy's scope. */
export const companyVisible = visibleType('Company', Company, companySearch, companyPolicy);
