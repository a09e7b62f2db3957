import { HeaderMap, type ApolloServerPlugin } from '@apollo/server';
import type { Caller } from '../auth/caller';
import type { FairShareOptions } from '../config';
import { AppError } from '../errors';

/** How long a caller refused for its organisation's share is told to wait. */
export const FAIR_SHARE_RETRY_AFTER_SECONDS = 1;


interface Lane {
  running: number;
  waiting: Array<{ go(): void }>;
}

/** The share a caller's request counts against: its company or retailer; the platform operator's own user. */
export function shareKey(caller: Caller): string {
  if (caller.companyId) return `company:${caller.companyId}`;
  if (caller.retailerId) return `retailer:${caller.retailerId}`;
  return `user:${caller.userId}`;
}

/** 429 with `Retry-After`, in the contract's generic body on REST and with code RATE_LIMITED on GraphQL. */
export function shareExhausted(): AppError {
  const e = new AppError('RATE_LIMITED', 'Too many requests of your organisation are running at once; retry shortly');
  e.extensions.http = { status: 429, headers: new HeaderMap([['retry-after', String(FAIR_SHARE_RETRY_AFTER_SECONDS)]]) };
  return e;
}

/**
 * Each organisation's share of the process (the concurrency limiter Stripe describes beside its rate
 * limiter): at most `inFlight` of its requests run at once, the next `queue` wait their turn in order
 * for up to `waitMs`, and the rest are refused with 429 at once. Per-key rate limits count requests over
 * a minute; this bounds what runs now, so one brand's burst of slow requests, from many keys and
 * addresses, cannot hold every database connection while another brand's requests time out.
 */
export class FairShare {
  private readonly lanes = new Map<string, Lane>();

  constructor(private readonly options: FairShareOptions) {}

  /** Takes a turn for `key` (waiting for one if need be) and gives the function that hands it back. */
  async enter(key: string): Promise<() => void> {
    if (this.options.inFlight <= 0) return () => undefined;
    const lane = this.lanes.get(key) ?? { running: 0, waiting: [] };
    this.lanes.set(key, lane);
    if (lane.running < this.options.inFlight) {
      lane.running++;
    } else {
      if (lane.waiting.length >= this.options.queue) throw shareExhausted();
      await new Promise<void>((resolve, reject) => {
        const turn = {
          go: () => {
            clearTimeout(timer);
            resolve();
          },
        };
        const timer = setTimeout(() => {
          lane.waiting.splice(lane.waiting.indexOf(turn), 1);
          reject(shareExhausted());
        }, this.options.waitMs);
        // The request's own socket keeps the process up while it waits; this timer never does.
        timer.unref();
        lane.waiting.push(turn);
      });
      // `leave` handed its turn over: `running` already counts this request.
    }
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.leave(key, lane);
    };
  }

  /** Requests of `key` running and waiting (for tests and metrics). */
  usage(key: string): { running: number; waiting: number } {
    const lane = this.lanes.get(key);
    return { running: lane?.running ?? 0, waiting: lane?.waiting.length ?? 0 };
  }

  private leave(key: string, lane: Lane): void {
    const next = lane.waiting.shift();
    if (next) return next.go();
    lane.running--;
    if (lane.running === 0) this.lanes.delete(key);
  }
}

/**
 * The GraphQL side of the share: an operation takes its caller's turn once it is parsed and validated
 * (refusals of bad documents cost nothing) and hands it back when the response is ready.
 */
export function fairSharePlugin(share: FairShare): ApolloServerPlugin<{ caller: Caller | null }> {
  return {
    async requestDidStart() {
      let release: (() => void) | undefined;
      return {
        async didResolveOperation({ contextValue, operation }) {
          // A subscription over HTTP is refused by Apollo; over WebSocket it never comes here.
          if (!contextValue.caller || operation?.operation === 'subscription') return;
          release = await share.enter(shareKey(contextValue.caller));
        },
        async willSendResponse() {
          release?.();
        },
      };
    },
  };
}
