import { Arg, Args, Ctx, FieldResolver, ID, Mutation, Query, Resolver, Root } from 'type-graphql';
import type { Context } from '../../context';
import { Lead } from '../lead/lead.entity';
import { leadAssociation, type LeadRow } from '../lead/lead.repository';
import { LeadOutcomeService } from './lead-outcome.service';
import { LeadFunnelRow, LeadOutcome, LeadOutcomeInput } from './lead-outcome.types';
import { leadFunnel, LeadFunnelArgs } from './lead-funnel';

@Resolver(() => Lead)
export class LeadOutcomeResolver {
  @Mutation(() => Lead, {
    description:
      "Records what became of a lead (`WON` or `LOST`), replacing its outcome if it had one; sets the lead's status to `Won` / `Lost` " +
      "unless it already is. For the users of the lead's store and the admins of its owner (others who see the lead: FORBIDDEN).",
  })
  recordLeadOutcome(
    @Arg('id', () => ID, { description: "The lead (UUID); one outside the caller's scope is NOT_FOUND." }) id: string,
    @Arg('input', () => LeadOutcomeInput, { description: 'The outcome.' }) input: LeadOutcomeInput,
    @Ctx() ctx: Context,
  ) {
    return new LeadOutcomeService(ctx).record(id, input);
  }

  @FieldResolver(() => LeadOutcome, { nullable: true, description: 'What became of the lead (`won` / `lost`); null until an outcome is recorded.' })
  outcome(@Root() lead: LeadRow, @Ctx() ctx: Context) {
    return leadAssociation(ctx, lead, 'outcome');
  }

  @Query(() => [LeadFunnelRow], {
    description:
      'The lead funnel over the leads the lead list shows for `where` (same scope and filter): offers and their answers, contacts, ' +
      'outcomes and revenue per currency, grouped as asked (docs/lead-loop.md). At most 5,000 rows, ordered by the groups.',
  })
  leadFunnel(@Args(() => LeadFunnelArgs) args: LeadFunnelArgs, @Ctx() ctx: Context) {
    return leadFunnel(ctx, args);
  }
}
