import type { Context } from '../../context';
import { CompanyOwnedService, companyOwnedSearch } from '../company/company-owned';
import { Collection } from './collection.entity';
import type { CollectionInput } from './collection.input';

export const collectionSearch = companyOwnedSearch('collections', 'collections');

/** Network management of a company's collections. */
export function collectionService(ctx: Context) {
  return new CompanyOwnedService<Collection, CollectionInput>(ctx, {
    entity: Collection,
    typeName: 'Collection',
    search: collectionSearch,
    uniqueName: 'collections_company_id_name_unique',
  });
}
