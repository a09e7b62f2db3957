import type { Context } from '../../context';
import { MAX_BOOST } from '../../limits';
import { Assign } from '../../db/assign';
import { CompanyOwnedService } from '../company/company-owned';
import { companyStoreTypePolicy } from './company-store-type.policy';
import { companyStoreTypeSearch } from './company-store-type.search';
import { CompanyStoreType } from './company-store-type.entity';
import type { CompanyStoreTypeInput } from './company-store-type.input';

/** Network management of a company's store types. */
export function companyStoreTypeService(ctx: Context) {
  return new CompanyOwnedService<CompanyStoreType, CompanyStoreTypeInput>(ctx, {
    entity: CompanyStoreType,
    typeName: 'CompanyStoreType',
    search: companyStoreTypeSearch,
    policy: companyStoreTypePolicy,
    uniqueName: 'company_store_types_company_id_name_unique',
    extra: (record, input, v) => new Assign(record, v).number('boost', input.boost, 'boost', 0, true, MAX_BOOST),
  });
}
