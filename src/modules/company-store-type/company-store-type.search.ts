import { visibleType } from '../../access/visibility';
import { companyOwnedSearch } from '../company/company-owned';
import { companyStoreTypePolicy } from './company-store-type.policy';
import { CompanyStoreType } from './company-store-type.entity';

/** What a companyStoreType list can search, filter and order on: a company's named record. */
export const companyStoreTypeSearch = companyOwnedSearch('company_store_types', 'company_store_types');

/** Who sees a CompanyStoreType wherever it is reached (src/access/visibility.ts): its policy's scope. */
export const companyStoreTypeVisible = visibleType('CompanyStoreType', CompanyStoreType, companyStoreTypeSearch, companyStoreTypePolicy);
