import { Arg, Ctx, ID, Int, Mutation, Query, Resolver } from 'type-graphql';
import type { Context } from '../../context';
import { RetentionService } from './retention.service';
import { RetentionDryRun, RetentionSettings, RetentionSettingsInput } from './retention.types';

const COMPANY = { nullable: true, description: "The company (UUID): a company admin's own when left out; the platform operator names it." } as const;

@Resolver()
export class RetentionResolver {
  @Query(() => RetentionSettings, { description: "A company's retention periods (docs/personal-data.md \"Retention\"). A company admin (its own company) or the platform operator." })
  retentionSettings(@Arg('companyId', () => ID, COMPANY) companyId: string | null, @Ctx() ctx: Context) {
    return new RetentionService(ctx).get(companyId);
  }

  @Query(() => RetentionDryRun, {
    description: "What the retention job would erase or delete in the company now, under its periods, touching nothing. A company admin (its own company) or the platform operator.",
  })
  retentionDryRun(
    @Arg('companyId', () => ID, COMPANY) companyId: string | null,
    @Arg('first', () => Int, { defaultValue: 100, description: 'How many ids each list holds at most (1 to 1000).' }) first: number,
    @Ctx() ctx: Context,
  ) {
    return new RetentionService(ctx).dryRun(companyId, first);
  }

  @Mutation(() => RetentionSettings, { description: "Changes a company's retention periods (audited `settings.retention_changed`). A company admin (its own company) or the platform operator." })
  updateRetentionSettings(@Arg('input', () => RetentionSettingsInput, { description: 'The periods to change; those left out keep their value.' }) input: RetentionSettingsInput, @Ctx() ctx: Context) {
    return new RetentionService(ctx).update(input);
  }
}
