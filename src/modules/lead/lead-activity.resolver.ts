import { Arg, Args, Ctx, FieldResolver, ID, Mutation, Query, Resolver, Root } from 'type-graphql';
import { ConnectionArgs, ConnectionType, type ConnectionFilterArgs } from '../../graphql/connection';
import type { Context } from '../../context';
import { visibleIds } from '../../auth/visibility';
import type { ListArgs } from '../../graphql/common';
import { Lead } from './lead.entity';
import { LeadActivity } from './lead-activity.entity';
import { LeadActivityInput } from './lead.input';
import { LeadActivityPage } from './lead.types';
import { LeadActivityService } from './lead-activity.service';
import { leadReads, type LeadActivityRow } from './lead.reader';
import { listInputs } from '../../graphql/list-args';
import { leadActivitySearch } from './lead.search';

const LeadActivityLists = listInputs(leadActivitySearch, 'LeadActivity');

export const LeadActivityConnection = ConnectionType(LeadActivity, 'LeadActivity');

@Resolver(() => LeadActivity)
export class LeadActivityResolver {
  @Query(() => LeadActivityPage, { description: 'Activities of the leads visible to the caller.' })
  leadActivities(@Args(() => LeadActivityLists.ListArgs) args: ListArgs, @Ctx() ctx: Context) {
    return new LeadActivityService(ctx).list(args);
  }

  @Query(() => LeadActivityConnection, { description: 'The same list by Relay cursors: `first`/`after`, `last`/`before` (keyset: every page costs what the first costs).' })
  leadActivitiesConnection(@Args(() => LeadActivityLists.FilterArgs) filter: ConnectionFilterArgs, @Args(() => ConnectionArgs) paging: ConnectionArgs, @Ctx() ctx: Context) {
    return new LeadActivityService(ctx).connection(filter, paging);
  }

  @Query(() => LeadActivity)
  leadActivity(@Arg('id', () => ID) id: string, @Ctx() ctx: Context) {
    return new LeadActivityService(ctx).get(id);
  }

  @Mutation(() => LeadActivity)
  createLeadActivity(@Arg('input', () => LeadActivityInput) input: LeadActivityInput, @Ctx() ctx: Context) {
    return new LeadActivityService(ctx).create(input);
  }

  @Mutation(() => LeadActivity, { description: 'Changes the sent attributes, typically `crmId`, `crmProvider`, `crmDataCache`.' })
  updateLeadActivity(@Arg('id', () => ID) id: string, @Arg('input', () => LeadActivityInput) input: LeadActivityInput, @Ctx() ctx: Context) {
    return new LeadActivityService(ctx).update(id, input, false);
  }

  @Mutation(() => LeadActivity, { description: 'Replaces the attributes: absent ones become null (`leadId` and `type` stay unless sent).' })
  replaceLeadActivity(@Arg('id', () => ID) id: string, @Arg('input', () => LeadActivityInput) input: LeadActivityInput, @Ctx() ctx: Context) {
    return new LeadActivityService(ctx).update(id, input, true);
  }

  @Mutation(() => ID, { description: 'Deletes the activity and returns its id.' })
  async deleteLeadActivity(@Arg('id', () => ID) id: string, @Ctx() ctx: Context) {
    await new LeadActivityService(ctx).delete(id);
    return id;
  }

  @FieldResolver(() => ID)
  leadId(@Root() activity: LeadActivity | LeadActivityRow) {
    return activity instanceof LeadActivity ? activity.lead.id : activity.leadId;
  }

  @FieldResolver(() => Lead, { nullable: true, description: 'Null when the caller does not see it.' })
  async lead(@Root() activity: LeadActivity | LeadActivityRow, @Ctx() ctx: Context) {
    const leadId = activity instanceof LeadActivity ? activity.lead.id : activity.leadId;
    const visible = await ctx.loaders.isVisible('Lead', (ids) => visibleIds(ctx, 'Lead', ids)).load(leadId);
    return visible ? leadReads(ctx).lead.load(leadId) : null;
  }
}
