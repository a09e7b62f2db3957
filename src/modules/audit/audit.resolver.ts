import { Arg, Ctx, ID, Int, Query, Resolver } from 'type-graphql';
import type { Context } from '../../context';
import { AuditService } from './audit.service';
import { AuditLogPage, AuditLogWhere } from './audit.types';

@Resolver()
export class AuditResolver {
  @Query(() => AuditLogPage, {
    description:
      "A company's tamper-evident audit log, newest first (docs/personal-data.md): who created or revoked keys, changed roles or settings, imported or exported. " +
      "A company admin reads its own company's; the platform operator any company's (`companyId`), or without one the platform's. Every other role is FORBIDDEN.",
  })
  auditLog(
    @Arg('companyId', () => ID, { nullable: true, description: "The company (UUID); the caller's own when left out (the platform operator: the platform's log). Another company's is NOT_FOUND to a company admin." }) companyId: string | null,
    @Arg('where', () => AuditLogWhere, { nullable: true, description: 'Which entries; all when left out.' }) where: AuditLogWhere | null,
    @Arg('first', () => Int, { defaultValue: 50, description: 'How many, newest first (1 to 200).' }) first: number,
    @Arg('after', () => String, { nullable: true, description: "The previous page's `endCursor`: the entries before it." }) after: string | null,
    @Ctx() ctx: Context,
  ) {
    return new AuditService(ctx).log(companyId, where, first, after);
  }
}
