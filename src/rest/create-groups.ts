import type { Context } from '../context';
import type { Context as TraceContext } from '@opentelemetry/api';
import { currentContext, inContext, inSpan, linksTo } from '../tracing';
import { RestError, type RestExecutor } from './executor';

/** A create waiting for its caller's running write. */
interface Member {
  ctx: Context;
  input: Record<string, unknown>;
  /** Its request's trace, when tracing is on. */
  trace: TraceContext | undefined;
  resolve(value: unknown): void;
  reject(error: unknown): void;
}

/** One caller's creates with one `include`: whether a write of theirs runs, and who waits for it. */
interface Lane {
  waiting: Member[];
}

/**
 * Group commit for a resource's single creates (`POST /v1/leads` without an `Idempotency-Key`). A create
 * whose caller has no create of its own being written runs at once, alone, as it always did. Creates of
 * that caller (the same authenticated key, the same `include`) that arrive while it runs wait for it,
 * then are written together by the resource's batch operation (`createLeads`): one transaction, a
 * constant number of statements and one commit for all of them, in the order they arrived; each is
 * answered exactly as its own create (its 201 and body, or its 403 or 422), after the commit. What arrives
 * during that write forms the next group, up to the batch's maximum.
 *
 * So nothing waits on an idle service, and under load each create waits at most for the write ahead of
 * it. Groups never mix callers: a company's creates never share a transaction with another's, nor with
 * another key's. Creates with an `Idempotency-Key` run alone, their answer stored in their own
 * transaction (src/rest/idempotency.ts). The number waiting is bounded by the caller's organisation's
 * share of the process (src/http/fair-share.ts): each waiting create holds one of its turns.
 */
export class CreateGroups {
  /** By caller (its key, user, role and scope: a key whose scope changed starts a lane of its own) and `include`. */
  private readonly lanes = new Map<string, Lane>();

  constructor(
    private readonly executor: RestExecutor,
    /** The single create (`createLead`: `input` and the include flags). */
    private readonly create: string,
    /** The batch create (`createLeads`: `inputs` and the same flags). */
    private readonly batch: string,
    private readonly max: number,
  ) {}

  /** The create's `result`, or its error as a RestError, once it is committed. */
  async write(ctx: Context, input: Record<string, unknown>, flags: Record<string, unknown>): Promise<unknown> {
    const key = `${JSON.stringify(ctx.caller)}\n${JSON.stringify(flags)}`;
    const running = this.lanes.get(key);
    if (running) return new Promise((resolve, reject) => running.waiting.push({ ctx, input, trace: currentContext(), resolve, reject }));
    const lane: Lane = { waiting: [] };
    this.lanes.set(key, lane);
    try {
      return await this.executor.execute(ctx, this.create, { input, ...flags });
    } finally {
      void this.drain(key, lane, flags);
    }
  }

  /** Writes the lane's waiting creates, a group at a time, until none waits; then the lane is gone. */
  private async drain(key: string, lane: Lane, flags: Record<string, unknown>): Promise<void> {
    while (lane.waiting.length) {
      const group = lane.waiting.splice(0, this.max);
      try {
        if (group.length === 1) {
          const [only] = group;
          only.resolve(await inContext(only.trace, () => this.executor.execute(only.ctx, this.create, { input: only.input, ...flags })));
          continue;
        }
        // The first member's context: every member's is the same caller's, and none has been used yet.
        // Traced, the group's write is a span of the first member's trace, with links to the others'.
        const results = await inSpan(
          `${this.batch} group`,
          { parent: group[0].trace, links: linksTo(group.slice(1).map((m) => m.trace)), attributes: { 'leadnet.group.size': group.length } },
          () => this.executor.executeItems(group[0].ctx, this.batch, { inputs: group.map((m) => m.input), ...flags }),
        );
        results.forEach((result, i) => (result.ok ? group[i].resolve(result.value) : group[i].reject(new RestError(result.http, result.original))));
      } catch (e) {
        for (const member of group) member.reject(e);
      }
    }
    this.lanes.delete(key);
  }
}
