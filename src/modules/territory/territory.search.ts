import { visibleType } from '../../access/visibility';
import { companyOwnedSearch } from '../company/company-owned';
import { territoryPolicy } from './territory.policy';
import { Territory } from './territory.entity';

/** What a territory list can search, filter and order on: a company's named record. */
export const territorySearch = companyOwnedSearch('territories', 'territories');

/** Who sees a Territory wherever it is reached (src/access/visibility.ts): its policy's scope. */
export const territoryVisible = visibleType('Territory', Territory, territorySearch, territoryPolicy);
