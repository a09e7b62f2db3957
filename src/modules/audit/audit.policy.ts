import type { ResourcePolicy } from '../../access/policy';
import { anyUser, oneOf, platformOperator } from '../../access/audience';
import type { Caller } from '../../auth/caller';
import { Role } from '../user/role';

/** What a decision about an audit log reads: the company whose chain it is (null: the platform's chain). */
export interface AuditFacts {
  companyId: string | null;
}

/**
 * The audit log (docs/personal-data.md "Audit log"): any user reaches the field; `read` is the platform
 * operator's for every chain (each company's and the platform's) and a company admin's for its own
 * company's chain. Every other role is 403; another company's chain is 404 to a company admin
 * (`visible`), as if it did not exist.
 */
export const auditPolicy: ResourcePolicy<'read' | 'visible', AuditFacts> = {
  name: 'audit',
  graphql: {
    audience: anyUser,
    Query: ['auditLog'],
    types: ['AuditEntry', 'AuditLogPage'],
  },
  decide: (caller, action, facts) => {
    if (platformOperator(caller)) return true;
    const ownCompany = !!caller.companyId && (!facts || facts.companyId === caller.companyId);
    if (action === 'visible') return ownCompany;
    return oneOf(Role.CompanyAdmin)(caller) && ownCompany;
  },
};

/** The company whose chain the caller reads when it names none: its own (null for the operator: the platform's). */
export function defaultAuditCompany(caller: Caller): string | null {
  return platformOperator(caller) ? null : caller.companyId;
}
