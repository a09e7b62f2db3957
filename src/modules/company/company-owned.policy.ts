import { actionTable, ALL, READ, type Action, type ResourcePolicy } from '../../access/policy';
import { anyUser, companyUser, platformOperator } from '../../access/audience';
import type { Caller } from '../../auth/caller';
import type { Where } from '../../search/types';
import { Role } from '../user/role';

/** Territories, store types and collections: the operator and the company's admin write; the company's users read. */
export const companyOwnedActions = actionTable(READ, { [Role.PlatformOperator]: ALL, [Role.CompanyAdmin]: ALL });

/** The operator sees all; company users their company's; retailer users none. */
export function companyOwnedScope(caller: Caller): Where {
  if (platformOperator(caller)) return {};
  if (companyUser(caller)) return { company_id: caller.companyId ?? [] };
  return { id: [] };
}

/** What a decision about a company's own record reads: the company it is (to be) made for. */
export interface CompanyOwnedFacts {
  companyId: string | null | undefined;
}

/** The operator creates one for any company; a company admin for its own only (another company is 403). */
export function companyOwnedDecision(caller: Caller, action: Action, record: CompanyOwnedFacts | undefined): boolean {
  if (action !== 'create') return true;
  return platformOperator(caller) || record?.companyId === caller.companyId;
}

/**
 * The policy of a company's named record (`Type`, its list `plural`, its show `single`): any user reaches
 * the fields; the operator and the company's admin write; the company's users see them.
 */
export function companyOwnedPolicy(name: string, type: string, plural: string, single: string): ResourcePolicy<Action, CompanyOwnedFacts> {
  return {
    name,
    graphql: {
      audience: anyUser,
      Query: [plural, single],
      Mutation: [`create${type}`, `update${type}`, `delete${type}`],
      types: [type, `${type}Page`],
    },
    actions: companyOwnedActions,
    decide: companyOwnedDecision,
    scope: companyOwnedScope,
  };
}
