import { Arg, Args, Ctx, FieldResolver, ID, Info, Mutation, Query, Resolver, Root } from 'type-graphql';
import type { GraphQLResolveInfo } from 'graphql';
import { selectedFields } from '../../graphql/lookahead';
import { ConnectionArgs, ConnectionType, type ConnectionFilterArgs } from '../../graphql/connection';
import type { Context } from '../../context';
import { seenLoader } from '../../access/visibility';
import { leadVisible } from './lead.search';
import type { ListArgs } from '../../graphql/common';
import { Lead } from './lead.entity';
import { LeadActivity } from './lead-activity.entity';
import { LeadActivityInput } from './lead.input';
import { LeadActivityPage } from './lead.types';
import { LeadActivityService } from './lead-activity.service';
import { leadReads, type LeadActivityRow } from './lead.repository';
import { listInputs } from '../../search/list-args';
import { leadActivitySearch } from './lead.search';

const LeadActivityLists = listInputs(leadActivitySearch, 'LeadActivity');

export const LeadActivityConnection = ConnectionType(LeadActivity, 'LeadActivity');

@Resolver(() => LeadActivity)
export class LeadActivityResolver {
  @Query(() => LeadActivityPage, { description: 'Activities of the leads visible to the caller.' })
  leadActivities(@Args(() => LeadActivityLists.ListArgs) args: ListArgs, @Ctx() ctx: Context, @Info() info: GraphQLResolveInfo) {
    return new LeadActivityService(ctx).list(args, selectedFields(info, ['nodes', 'lead']));
  }

  @Query(() => LeadActivityConnection, { description: 'The same list by Relay cursors: `first`/`after`, `last`/`before` (keyset: every page costs what the first costs).' })
  leadActivitiesConnection(@Args(() => LeadActivityLists.FilterArgs) filter: ConnectionFilterArgs, @Args(() => ConnectionArgs) paging: ConnectionArgs, @Ctx() ctx: Context) {
    return new LeadActivityService(ctx).connection(filter, paging);
  }

  @Query(() => LeadActivity, { description: 'One activity of a lead the caller sees, by id.' })
  leadActivity(@Arg('id', () => ID, { description: "The lead activity's id (UUID). One outside the caller's scope is NOT_FOUND, as one that does not exist." }) id: string, @Ctx() ctx: Context) {
    return new LeadActivityService(ctx).get(id);
  }

  @Mutation(() => LeadActivity, { description: "Appends an activity to a lead's timeline; needs the lead's update permission. A `LeadActivity::QuoteRequest` needs `data.products`." })
  createLeadActivity(@Arg('input', () => LeadActivityInput, { description: "The new lead activity's attributes." }) input: LeadActivityInput, @Ctx() ctx: Context) {
    return new LeadActivityService(ctx).create(input);
  }

  @Mutation(() => LeadActivity, { description: 'Changes the sent attributes, typically `crmId`, `crmProvider`, `crmDataCache`.' })
  updateLeadActivity(@Arg('id', () => ID, { description: "The lead activity to change (UUID); one outside the caller's scope is NOT_FOUND." }) id: string, @Arg('input', () => LeadActivityInput, { description: 'The attributes to change; those not sent keep their values.' }) input: LeadActivityInput, @Ctx() ctx: Context) {
    return new LeadActivityService(ctx).update(id, input, false);
  }

  @Mutation(() => LeadActivity, { description: 'Replaces the attributes: absent ones become null (`leadId` and `type` stay unless sent).' })
  replaceLeadActivity(@Arg('id', () => ID, { description: "The lead activity to replace (UUID); one outside the caller's scope is NOT_FOUND." }) id: string, @Arg('input', () => LeadActivityInput, { description: 'Every writable attribute; those not sent are cleared or return to their defaults.' }) input: LeadActivityInput, @Ctx() ctx: Context) {
    return new LeadActivityService(ctx).update(id, input, true);
  }

  @Mutation(() => ID, { description: 'Deletes the activity and returns its id.' })
  async deleteLeadActivity(@Arg('id', () => ID, { description: "The lead activity to delete (UUID); one outside the caller's scope is NOT_FOUND." }) id: string, @Ctx() ctx: Context) {
    await new LeadActivityService(ctx).delete(id);
    return id;
  }

  @FieldResolver(() => ID, { description: 'The lead the activity belongs to.' })
  leadId(@Root() activity: LeadActivity | LeadActivityRow) {
    return activity instanceof LeadActivity ? activity.lead.id : activity.leadId;
  }

  @FieldResolver(() => Lead, { nullable: true, description: 'Null when the caller does not see it.' })
  async lead(@Root() activity: LeadActivity | LeadActivityRow, @Ctx() ctx: Context) {
    const leadId = activity instanceof LeadActivity ? activity.lead.id : activity.leadId;
    const visible = await seenLoader(ctx, leadVisible).load(leadId);
    return visible ? leadReads(ctx).lead.load(leadId) : null;
  }
}
