import { Ctx, FieldResolver, Resolver, Root } from 'type-graphql';
import type { Context } from '../../context';
import { authorize } from '../../access/policy';
import { Lead } from './lead.entity';
import { leadAssociation, type LeadRow } from './lead.repository';
import { leadPolicy } from './lead.policy';

/**
 * A lead's first-response timer at its current store (docs/response-times.md "On the lead"): part of the
 * lead, read by whoever may show the lead, the store's own staff included (the lead policy's `show`);
 * with the page's row when a list reads it, else one statement per batch of leads (the `timer` loader).
 * Here rather than in the response-times module, so the lead's REST record reads it with that module
 * removed (the timers' table is a migration's, not the module's).
 */
@Resolver(() => Lead)
export class LeadTimerResolver {
  @FieldResolver(() => Date, {
    nullable: true,
    description:
      'When the store the lead is assigned to must answer by (its first-response due time, in its business hours; ISO 8601, UTC); ' +
      'null when unassigned, when the company has no first-response time, or while the due time is being computed.',
  })
  respondBy(@Root() lead: LeadRow, @Ctx() ctx: Context) {
    authorize(ctx.caller, 'show', leadPolicy);
    return leadAssociation(ctx, lead, 'respondBy');
  }

  @FieldResolver(() => Boolean, { description: 'True when the store the lead is assigned to let its first-response time pass unanswered.' })
  breached(@Root() lead: LeadRow, @Ctx() ctx: Context) {
    authorize(ctx.caller, 'show', leadPolicy);
    return leadAssociation(ctx, lead, 'breached');
  }
}
