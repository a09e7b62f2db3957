import type { Context } from '../../context';
import { CompanyOwnedService } from '../company/company-owned';
import { collectionPolicy } from './collection.policy';
import { collectionSearch } from './collection.search';
import { Collection } from './collection.entity';
import type { CollectionInput } from './collection.input';

/** Network management of a company's collections. */
export function collectionService(ctx: Context) {
  return new CompanyOwnedService<Collection, CollectionInput>(ctx, {
    entity: Collection,
    typeName: 'Collection',
    search: collectionSearch,
    policy: collectionPolicy,
    uniqueName: 'collections_company_id_name_unique',
  });
}
