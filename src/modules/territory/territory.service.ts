import type { Context } from '../../context';
import { CompanyOwnedService } from '../company/company-owned';
import { territoryPolicy } from './territory.policy';
import { territorySearch } from './territory.search';
import { Territory } from './territory.entity';
import type { TerritoryInput } from './territory.input';

/** Network management of a company's territorys. */
export function territoryService(ctx: Context) {
  return new CompanyOwnedService<Territory, TerritoryInput>(ctx, {
    entity: Territory,
    typeName: 'Territory',
    search: territorySearch,
    policy: territoryPolicy,
    uniqueName: 'territories_company_id_name_unique',
  });
}
