import { Arg, Ctx, FieldResolver, ID, Mutation, Resolver, Root } from 'type-graphql';
import type { Context } from '../../context';
import { authorize } from '../../access/policy';
import { leadPolicy } from './lead.policy';
import { Lead } from './lead.entity';
import type { LeadRow } from './lead.repository';
import { LeadOfferService, offerLoader } from './lead-offer.service';
import { DeclineReason, LeadOffer } from './lead-offer.types';

/** Offers of leads to stores (docs/lead-loop.md): accept, decline, and the lead's offer. */
@Resolver(() => Lead)
export class LeadOfferResolver {
  @Mutation(() => Lead, {
    description:
      "The caller's store accepts the lead offered to it (docs/lead-loop.md); answers the lead's first-response timer. " +
      "NOT_FOUND outside the caller's scope, FORBIDDEN when the caller does not answer for a store the lead was offered to, " +
      'CONFLICT when that offer is not open (already accepted, declined, expired or withdrawn).',
  })
  acceptLead(@Arg('id', () => ID, { description: 'The lead (UUID).' }) id: string, @Ctx() ctx: Context) {
    return new LeadOfferService(ctx).accept(id);
  }

  @Mutation(() => Lead, {
    description:
      "The caller's store declines the lead offered to it: the lead is handed to the next store by the company's routing rules, " +
      'never one it had, or escalated (docs/lead-loop.md). Errors as `acceptLead`; 422 on `note` when the reason is OTHER without one, or over 500 characters. ' +
      'When the caller no longer sees the lead after the hand-over, the answer is the lead as it saw it, with its declined offer.',
  })
  declineLead(
    @Arg('id', () => ID, { description: 'The lead (UUID).' }) id: string,
    @Arg('reason', () => DeclineReason, { description: 'Why the store declines.' }) reason: DeclineReason,
    @Arg('note', () => String, { nullable: true, description: 'Free text, up to 500 characters; required when the reason is OTHER.' }) note: string | null | undefined,
    @Ctx() ctx: Context,
  ) {
    return new LeadOfferService(ctx).decline(id, reason, note);
  }

  @FieldResolver(() => LeadOffer, { nullable: true, description: 'The open offer of the lead to a store, else its latest one; null when it was never offered.' })
  offer(@Root() lead: LeadRow, @Ctx() ctx: Context) {
    return offerLoader(ctx).load(lead.id);
  }

  @FieldResolver(() => Date, {
    nullable: true,
    description:
      'When the lead was escalated: declined or not accepted in time with no hand-over left (the company\'s `maxHandovers` reached, or no eligible store), ' +
      "so it waits at its last store, with no open offer, for the territory manager (else the company admins) to reassign it (docs/lead-loop.md); null otherwise, and again once it is assigned to a store. " +
      'Filter the list with `where: {escalatedAt: {exists: true}}` (REST `opts[where][escalated_at][exists]=true`).',
  })
  escalatedAt(@Root() lead: LeadRow, @Ctx() ctx: Context) {
    authorize(ctx.caller, 'show', leadPolicy);
    return lead.escalatedAt ? new Date(lead.escalatedAt) : null;
  }
}
