import { visibleType } from '../../access/visibility';
import { companyOwnedSearch } from '../company/company-owned';
import { collectionPolicy } from './collection.policy';
import { Collection } from './collection.entity';

/** What a collection list can search, filter and order on: a company's named record. */
export const collectionSearch = companyOwnedSearch('collections', 'collections');

/** Who sees a Collection wherever it is reached (src/access/visibility.ts): its policy's scope. */
export const collectionVisible = visibleType('Collection', Collection, collectionSearch, collectionPolicy);
