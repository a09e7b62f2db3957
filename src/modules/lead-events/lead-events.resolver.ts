import { authorize } from '../../access/policy';
import { leadPolicy } from '../lead/lead.policy';
import { Arg, Ctx, FieldResolver, Resolver, Root, Subscription, type SubscribeResolverData } from 'type-graphql';
import type { Context } from '../../context';
import { AppError, badRequest, invalid, unauthenticated, validationDetail } from '../../errors';
import { Lead } from '../lead/lead.entity';
import { LeadActivity } from '../lead/lead-activity.entity';
import { LeadService } from '../lead/lead.service';
import type { LeadRow } from '../lead/lead.repository';
import type { LeadEventHub } from './lead-events.hub';
import type { LeadEventRow } from './lead-event.repository';
import { LEAD_EVENT_TYPES } from './lead-events.record';
import { LeadEvent, leadEventOf } from './lead-event.types';

/** What a WebSocket connection adds to the request context (`lead-events.ws.ts`). */
export interface LiveContext extends Context {
  live: {
    hub: LeadEventHub;
    /** A fresh EntityManager, loaders and caller for the next event; false once the key is revoked. */
    refresh(): Promise<boolean>;
  };
}

const OVER_WEBSOCKET = 'Subscriptions are served over WebSocket (graphql-ws protocol) at /graphql';

/** Events a slow subscriber may have waiting before its subscription is ended. */
const MAX_QUEUED = 1000;
/** Subscriptions a user may have open at once in one process (each costs a read per event). */
export const MAX_SUBSCRIPTIONS_PER_USER = 10;
/** Open subscriptions per user id, per hub (one hub per app). */
const open = new WeakMap<LeadEventHub, Map<string, number>>();

type Seen = LeadEvent & { lead?: LeadRow };

@Resolver(() => LeadEvent)
export class LeadEventResolver {
  @Subscription(() => LeadEvent, {
    description:
      'Lead events as they happen (over WebSocket, graphql-ws protocol, at /graphql), only for leads the caller may see. ' +
      '`types` narrows them (default: all).',
    subscribe: ({ args, context }: SubscribeResolverData<unknown, { types?: string[] | null }, Context>) => leadEvents(context, args.types ?? null),
  })
  leadEvents(@Root() event: LeadEvent | undefined, @Arg('types', () => [String], { nullable: true, description: 'Only events of these types, e.g. `["lead.created", "lead.status_changed"]` (default: all).' }) _types?: string[]): LeadEvent {
    // Without an event the operation was executed as a query or mutation would be (over HTTP).
    if (!event) throw badRequest(OVER_WEBSOCKET);
    return event;
  }

  @FieldResolver(() => Lead, { description: 'The lead as it is now, as the subscriber sees it.' })
  lead(@Root() event: Seen, @Ctx() ctx: Context) {
    return event.lead ?? new LeadService(ctx).get(event.leadId);
  }

  @FieldResolver(() => LeadActivity, { nullable: true, description: 'The new activity of a `lead_activity.created` event; null for other events.' })
  leadActivity(@Root() event: Seen, @Ctx() ctx: Context) {
    return event.leadActivityId ? ctx.loaders.byId(LeadActivity).load(event.leadActivityId) : null;
  }
}

/**
 * The subscriber's stream: every event of the hub of a wanted type whose lead the caller may see when
 * it arrives (the same scope as reads, checked with a fresh EntityManager and the key checked again).
 * An iterator rather than a generator, so that unsubscribing ends a wait for the next event at once.
 */
function leadEvents(context: Context, types: string[] | null): AsyncIterableIterator<Seen> {
  const live = (context as Partial<LiveContext>).live;
  if (!live) throw badRequest(OVER_WEBSOCKET);
  // graphql-shield's rule (lead-events.policy.ts) guards each event's resolve; graphql-middleware
  // does not wrap `subscribe` when a field has both, so it is checked here before listening: a role
  // that lists no leads (the lead policy) hears none of their events.
  if (!context.caller) throw unauthenticated();
  authorize(context.caller, 'list', leadPolicy);
  const unknown = (types ?? []).filter((t) => !(LEAD_EVENT_TYPES as readonly string[]).includes(t));
  if (unknown.length) throw invalid([validationDetail('types', 'inclusion', `has unknown event types: ${unknown.join(', ')}`)]);
  const wanted = types?.length ? new Set(types) : null;
  const counts = open.get(live.hub) ?? new Map<string, number>();
  open.set(live.hub, counts);
  const user = context.caller.userId;
  if ((counts.get(user) ?? 0) >= MAX_SUBSCRIPTIONS_PER_USER) {
    throw new AppError('RATE_LIMITED', `At most ${MAX_SUBSCRIPTIONS_PER_USER} lead event subscriptions may be open at once per user; end one first`);
  }
  counts.set(user, (counts.get(user) ?? 0) + 1);

  const queue: LeadEventRow[] = [];
  let wake: (() => void) | null = null;
  let done = false;
  const unsubscribe = live.hub.subscribe((row) => {
    if (wanted && !wanted.has(row.type)) return;
    queue.push(row);
    wake?.();
  });
  const finish = () => {
    if (!done) {
      const left = (counts.get(user) ?? 1) - 1;
      if (left > 0) counts.set(user, left);
      else counts.delete(user);
    }
    done = true;
    unsubscribe();
    wake?.();
  };
  const ended = (): IteratorResult<Seen> => ({ value: undefined, done: true });

  async function next(): Promise<IteratorResult<Seen>> {
    try {
      while (!done) {
        if (!queue.length) {
          await new Promise<void>((resolve) => (wake = resolve));
          wake = null;
          continue;
        }
        if (queue.length > MAX_QUEUED) throw new AppError('BAD_REQUEST', `More than ${MAX_QUEUED} events were waiting for this subscriber; subscribe again`);
        const row = queue.shift()!;
        if (!(await live!.refresh())) throw unauthenticated();
        const lead = await new LeadService(context).get(row.leadId).catch((e) => {
          if (e instanceof AppError && e.extensions.code === 'NOT_FOUND') return null;
          throw e;
        });
        if (lead && !done) return { value: { ...leadEventOf(row), lead }, done: false };
      }
      return ended();
    } catch (e) {
      finish();
      throw e;
    }
  }

  return {
    next,
    async return() {
      finish();
      return ended();
    },
    async throw(e: unknown) {
      finish();
      throw e;
    },
    [Symbol.asyncIterator]() {
      return this;
    },
  };
}
