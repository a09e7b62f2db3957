import type { AppModule } from '../module';
import { auditPolicy } from './audit.policy';
import { AuditResolver } from './audit.resolver';

/**
 * The audit log (docs/personal-data.md "Audit log"): `audit.record` (audit.service.ts), which the modules
 * that make audited changes call in their own transactions, and its reading (GraphQL `auditLog`,
 * `leadnet audit list|verify`).
 */
export const auditModule: AppModule = {
  name: 'audit',
  resolvers: [AuditResolver],
  policies: [auditPolicy],
};
