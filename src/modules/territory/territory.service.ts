import type { Context } from '../../context';
import { CompanyOwnedService, companyOwnedSearch } from '../company/company-owned';
import { Territory } from './territory.entity';
import type { TerritoryInput } from './territory.input';

export const territorySearch = companyOwnedSearch('territories', 'territories');

/** Network management of a company's territorys. */
export function territoryService(ctx: Context) {
  return new CompanyOwnedService<Territory, TerritoryInput>(ctx, {
    entity: Territory,
    typeName: 'Territory',
    search: territorySearch,
    uniqueName: 'territories_company_id_name_unique',
  });
}
