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
import { LeadService, merges } from './lead.service';
import { leadAssociation, type LeadRow } from './lead.reader';
import { listInputs } from '../../graphql/list-args';
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

  @Query(() => Lead)
  lead(@Arg('id', () => ID) id: string, @Ctx() ctx: Context) {
    return new LeadService(ctx).get(id);
  }

  @Query(() => [LeadActivity], { description: "A visible lead's whole activity timeline, newest first." })
  leadTimeline(@Arg('leadId', () => ID) leadId: string, @Ctx() ctx: Context) {
    return new LeadService(ctx).timeline(leadId);
  }

  @Mutation(() => Lead, { description: 'Creates a lead, or merges it into the duplicate of the same owner and returns that.' })
  createLead(@Arg('input', () => LeadInput) input: LeadInput, @Ctx() ctx: Context) {
    return new LeadService(ctx).create(input);
  }

  @Mutation(() => Lead, { description: 'Changes the sent attributes; nested items by `id`, `_destroy` removes.' })
  updateLead(@Arg('id', () => ID) id: string, @Arg('input', () => LeadInput) input: LeadInput, @Ctx() ctx: Context) {
    return new LeadService(ctx).update(id, input, false);
  }

  @Mutation(() => Lead, {
    description:
      'Replaces the lead (REST PUT). Attributes not sent are cleared (`name` stays required, `status` is kept unless sent). ' +
      '`emails` and `phoneNumbers` become exactly the sent list: items with `id` are kept and updated, items without `id` added, ' +
      'every other stored item removed. `location` becomes the sent one, or none. `leadActivities` behave as in `updateLead`: ' +
      'the timeline is history and is never replaced.',
  })
  replaceLead(@Arg('id', () => ID) id: string, @Arg('input', () => LeadInput) input: LeadInput, @Ctx() ctx: Context) {
    return new LeadService(ctx).update(id, input, true);
  }

  @Mutation(() => ID, { description: 'Deletes the lead and returns its id.' })
  async deleteLead(@Arg('id', () => ID) id: string, @Ctx() ctx: Context) {
    await new LeadService(ctx).delete(id);
    return id;
  }

  @FieldResolver(() => String)
  ownerType(@Root() lead: LeadRow) {
    return lead.ownerType;
  }

  @FieldResolver(() => ID)
  ownerId(@Root() lead: LeadRow) {
    return lead.ownerId;
  }

  @FieldResolver(() => ID, { nullable: true })
  assigneeId(@Root() lead: LeadRow) {
    return lead.assigneeId;
  }

  @FieldResolver(() => ID, { nullable: true })
  createdById(@Root() lead: LeadRow) {
    return lead.createdById;
  }

  @FieldResolver(() => [PhoneNumber])
  phoneNumbers(@Root() lead: LeadRow, @Ctx() ctx: Context) {
    return leadAssociation(ctx, lead, 'phoneNumbers');
  }

  @FieldResolver(() => [Email])
  emails(@Root() lead: LeadRow, @Ctx() ctx: Context) {
    return leadAssociation(ctx, lead, 'emails');
  }

  @FieldResolver(() => Location, { nullable: true })
  location(@Root() lead: LeadRow, @Ctx() ctx: Context) {
    return leadAssociation(ctx, lead, 'location');
  }

  @FieldResolver(() => LeadAssignee, { nullable: true })
  assignee(@Root() lead: LeadRow, @Ctx() ctx: Context) {
    return leadAssociation(ctx, lead, 'assignee');
  }

  @FieldResolver(() => LeadMerge, {
    nullable: true,
    description: 'Set only in a `createLead` answer that merged into this existing lead (PRODUCT.md 5): what the create added. Null otherwise.',
  })
  merge(@Root() lead: Lead | LeadRow, @Ctx() ctx: Context): LeadMerge | null {
    return merges(ctx).get(lead.id) ?? null;
  }

  @FieldResolver(() => [LeadActivity], { description: 'The timeline, newest first.' })
  leadActivities(@Root() lead: LeadRow, @Ctx() ctx: Context) {
    return leadAssociation(ctx, lead, 'leadActivities');
  }
}
