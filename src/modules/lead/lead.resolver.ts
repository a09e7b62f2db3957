import { Arg, Args, Ctx, FieldResolver, ID, Info, Mutation, Query, Resolver, Root } from 'type-graphql';
import type { GraphQLResolveInfo } from 'graphql';
import type { Context } from '../../context';
import type { ListArgs } from '../../graphql/common';
import { ConnectionArgs, ConnectionType, type ConnectionFilterArgs } from '../../graphql/connection';
import { selectedFields } from '../../graphql/lookahead';
import { Email } from '../contact/email.entity';
import { PhoneNumber } from '../contact/phone-number.entity';
import { Location } from '../contact/location.entity';
import { Lead } from './lead.entity';
import { LeadActivity } from './lead-activity.entity';
import { LeadInput } from './lead.input';
import { LeadAssignee, LeadMerge, LeadPage } from './lead.types';
import { LeadService } from './lead.service';
import { mergeOf, merges } from './lead.merge';
import { leadAssociation, type LeadRow } from './lead.repository';
import { listInputs } from '../../search/list-args';
import { checkBatchItem } from '../../limits';
import { leadSearch } from './lead.search';

const LeadLists = listInputs(leadSearch, 'Lead');

export const LeadConnection = ConnectionType(Lead, 'Lead');

@Resolver(() => Lead)
export class LeadResolver {
  @Query(() => LeadPage, { description: 'Leads visible to the caller.' })
  leads(@Args(() => LeadLists.ListArgs) args: ListArgs, @Ctx() ctx: Context, @Info() info: GraphQLResolveInfo) {
    return new LeadService(ctx).list(args, selectedFields(info, ['nodes']));
  }

  @Query(() => LeadConnection, { description: 'The same list by Relay cursors: `first`/`after`, `last`/`before` (keyset: every page costs what the first costs).' })
  leadsConnection(
    @Args(() => LeadLists.FilterArgs) filter: ConnectionFilterArgs,
    @Args(() => ConnectionArgs) paging: ConnectionArgs,
    @Ctx() ctx: Context,
    @Info() info: GraphQLResolveInfo,
  ) {
    return new LeadService(ctx).connection(filter, paging, selectedFields(info, ['edges', 'node'], ['nodes']));
  }

  @Query(() => Lead, { description: 'One lead the caller sees, by id.' })
  lead(@Arg('id', () => ID, { description: "The lead's id (UUID). One outside the caller's scope is NOT_FOUND, as one that does not exist." }) id: string, @Ctx() ctx: Context) {
    return new LeadService(ctx).get(id);
  }

  @Query(() => [LeadActivity], { description: "A visible lead's whole activity timeline, newest first." })
  leadTimeline(@Arg('leadId', () => ID, { description: "The lead (UUID); one outside the caller's scope is NOT_FOUND." }) leadId: string, @Ctx() ctx: Context) {
    return new LeadService(ctx).timeline(leadId);
  }

  @Mutation(() => Lead, { description: 'Creates a lead, or merges it into the duplicate of the same owner and returns that.' })
  createLead(@Arg('input', () => LeadInput, { description: "The new lead's attributes." }) input: LeadInput, @Ctx() ctx: Context) {
    return new LeadService(ctx).create(input);
  }

  @Mutation(() => [Lead], {
    nullable: 'items',
    description:
      'Creates up to 500 leads in order, each as `createLead` would (a duplicate merges into the oldest lead it shares an email or phone ' +
      'number with, one created by an earlier item too), in one transaction. An item that fails is null, with its error at its index in ' +
      '`errors[].path`; the others are created.',
  })
  async createLeads(
    @Arg('inputs', () => [LeadInput], { description: 'The new leads, at most 500.' }) inputs: LeadInput[],
    @Ctx() ctx: Context,
    @Info() info: GraphQLResolveInfo,
  ): Promise<Array<LeadRow | Error>> {
    const checked = inputs.map((input) => {
      try {
        checkBatchItem(info, input);
        return input;
      } catch (e) {
        return e as Error;
      }
    });
    const valid = checked.filter((c): c is LeadInput => !(c instanceof Error));
    const created = valid.length ? await new LeadService(ctx).createMany(valid) : [];
    let next = 0;
    return checked.map((c) => (c instanceof Error ? c : created[next++]));
  }

  @Mutation(() => Lead, { description: 'Changes the sent attributes; nested items by `id`, `_destroy` removes.' })
  updateLead(@Arg('id', () => ID, { description: "The lead to change (UUID); one outside the caller's scope is NOT_FOUND." }) id: string, @Arg('input', () => LeadInput, { description: 'The attributes to change; those not sent keep their values.' }) input: LeadInput, @Ctx() ctx: Context) {
    return new LeadService(ctx).update(id, input, false);
  }

  @Mutation(() => Lead, {
    description:
      'Replaces the lead (REST PUT). Attributes not sent are cleared (`name` stays required, `status` is kept unless sent). ' +
      '`emails` and `phoneNumbers` become exactly the sent list: items with `id` are kept and updated, items without `id` added, ' +
      'every other stored item removed. `location` becomes the sent one, or none. `leadActivities` behave as in `updateLead`: ' +
      'the timeline is history and is never replaced.',
  })
  replaceLead(@Arg('id', () => ID, { description: "The lead to replace (UUID); one outside the caller's scope is NOT_FOUND." }) id: string, @Arg('input', () => LeadInput, { description: 'Every writable attribute; those not sent are cleared or return to their defaults.' }) input: LeadInput, @Ctx() ctx: Context) {
    return new LeadService(ctx).update(id, input, true);
  }

  @Mutation(() => ID, { description: 'Deletes the lead and returns its id.' })
  async deleteLead(@Arg('id', () => ID, { description: "The lead to delete (UUID); one outside the caller's scope is NOT_FOUND." }) id: string, @Ctx() ctx: Context) {
    await new LeadService(ctx).delete(id);
    return id;
  }

  @FieldResolver(() => String, { description: "`Company` or `Retailer`: the kind of organisation that owns the lead (the creator's)." })
  ownerType(@Root() lead: LeadRow) {
    return lead.ownerType;
  }

  @FieldResolver(() => ID, { description: 'The owning company or retailer.' })
  ownerId(@Root() lead: LeadRow) {
    return lead.ownerId;
  }

  @FieldResolver(() => ID, { nullable: true, description: 'The company retailer location the lead is assigned to; null when unassigned.' })
  assigneeId(@Root() lead: LeadRow) {
    return lead.assigneeId;
  }

  @FieldResolver(() => ID, { nullable: true, description: 'The user whose API key created the lead; null when unknown (e.g. the user was deleted).' })
  createdById(@Root() lead: LeadRow) {
    return lead.createdById;
  }

  @FieldResolver(() => [PhoneNumber], { description: 'Phone numbers, in the order they were added.' })
  phoneNumbers(@Root() lead: LeadRow, @Ctx() ctx: Context) {
    return leadAssociation(ctx, lead, 'phoneNumbers');
  }

  @FieldResolver(() => [Email], { description: 'Emails, in the order they were added.' })
  emails(@Root() lead: LeadRow, @Ctx() ctx: Context) {
    return leadAssociation(ctx, lead, 'emails');
  }

  @FieldResolver(() => Location, { nullable: true, description: "The prospect's address; null when none was given." })
  location(@Root() lead: LeadRow, @Ctx() ctx: Context) {
    return leadAssociation(ctx, lead, 'location');
  }

  @FieldResolver(() => LeadAssignee, { nullable: true, description: 'The assigned store, in summary (id, name, company retailer, retailer location); null when unassigned.' })
  assignee(@Root() lead: LeadRow, @Ctx() ctx: Context) {
    return leadAssociation(ctx, lead, 'assignee');
  }

  @FieldResolver(() => LeadMerge, {
    nullable: true,
    description: 'Set only in a `createLead` (or `createLeads` item) answer that merged into this existing lead (PRODUCT.md 5): what the create added. Null otherwise.',
  })
  merge(@Root() lead: Lead | LeadRow, @Ctx() ctx: Context): LeadMerge | null {
    return mergeOf(lead) ?? merges(ctx).get(lead.id) ?? null;
  }

  @FieldResolver(() => [LeadActivity], { description: 'The timeline, newest first.' })
  leadActivities(@Root() lead: LeadRow, @Ctx() ctx: Context) {
    return leadAssociation(ctx, lead, 'leadActivities');
  }
}
