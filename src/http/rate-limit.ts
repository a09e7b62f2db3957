import type { Request, RequestHandler, Response } from 'express';
import { rateLimit, ipKeyGenerator, MemoryStore, type Options, type Store } from 'express-rate-limit';
import { RedisStore } from 'rate-limit-redis';
import { createClient } from 'redis';
import type { Config } from '../config';
import { AppError } from '../errors';
import { hashKey, keyFromHeader } from '../auth/api-keys';
import { logger } from '../logger';
import { withTimeout } from '../timeout';
import { sendError } from './errors';

/** The limiters of the HTTP edge, and what they hold open (the Redis connection). */
export interface RateLimits {
  /** `/v1/store_locator...`: per client IP. Its 429 stays readable by any origin, like the locator. */
  storeLocator: RequestHandler;
  /** `/v1` (except the locator) and `/graphql`: per API key (per IP without one), then per IP whatever the key. */
  api: RequestHandler[];
  /** `POST /v1/store_locator/{id}/leads` (the contact form): per client IP, then per site key (read from the parsed body). */
  storeContact: RequestHandler[];
  close(): Promise<void>;
}

let lastStoreError = 0;
/** express-rate-limit's messages through the service logger; a store outage logs every 10 s, not per request. */
const storeLogger = {
  error(err: unknown, message?: string) {
    if (Date.now() - lastStoreError < 10_000) return;
    lastStoreError = Date.now();
    logger.error({ err }, message);
  },
  warn: (err: unknown, message?: string) => logger.warn({ err }, message),
};

/** The client IP (after `trust proxy`), IPv6 grouped by /56 as express-rate-limit recommends. */
const clientIp = (req: Request) => ipKeyGenerator(req.ip ?? req.socket.remoteAddress ?? 'unknown');

/**
 * The bucket of an API call: a SHA-256 of the effective key (SPEC 5: what follows the last `:`), never
 * the key itself, so neither Redis nor a heap dump holds usable keys. Requests without a well-formed key
 * count against their IP.
 */
export function apiBucket(req: Request): string {
  const key = keyFromHeader(req.header('x-api-key'));
  return key ? `key:${hashKey(key)}` : `ip:${clientIp(req)}`;
}

/** As express routes it: case-insensitively (the locator has its own per-IP limit). */
const isStoreLocator = (req: Request) => /^\/v1\/store_locator(?:[/?]|$)/i.test(req.originalUrl);

/** The public contact form's posts (docs/lead-loop.md). */
const isStoreContact = (req: Request) => req.method === 'POST' && /^\/v1\/store_locator\/[^/?]+\/leads\/?(?:\?|$)/i.test(req.originalUrl);

/** The site key a contact form names (any string, bounded), so a key's pages share one limit. */
function siteKeyBucket(req: Request): string {
  const key = (req.body as Record<string, unknown> | undefined)?.site_key;
  return `site:${typeof key === 'string' ? key.slice(0, 64) : ''}`;
}

/**
 * Builds the limiters (express-rate-limit; counters in Redis through rate-limit-redis when `REDIS_URL`
 * is set, so every instance shares one limit). Headers: IETF draft 8 `RateLimit` and `RateLimit-Policy`
 * on every limited response, `Retry-After` on a 429. When Redis fails mid-flight requests pass unlimited
 * (logged) rather than fail.
 */
export async function createRateLimits(config: Config): Promise<RateLimits> {
  const { windowMs, api, apiPerIp, storeLocator, storeContact, storeContactPerSiteKey } = config.http.rateLimit;
  const redis = config.redisUrl ? await connectRedis(config.redisUrl) : undefined;
  const store = (prefix: string): Store =>
    redis
      ? new ReloadingRedisStore({ prefix: `leadnet:rl:${prefix}:`, sendCommand: (...args: string[]) => withTimeout(redis.sendCommand(args), REDIS_COMMAND_TIMEOUT_MS) })
      : new MemoryStore();

  const limiter = (name: string, limit: number, keyGenerator: (req: Request) => string, extra: Partial<Options> = {}): RequestHandler => {
    if (limit === 0) return (_req, _res, next) => next();
    return rateLimit({
      windowMs,
      limit,
      identifier: name,
      standardHeaders: 'draft-8',
      legacyHeaders: false,
      keyGenerator,
      store: store(name),
      passOnStoreError: true,
      logger: storeLogger,
      handler: (req: Request, res: Response) => sendError(req, res, tooMany(limit, windowMs, res)),
      ...extra,
    });
  };

  return {
    storeLocator: limiter('store-locator', storeLocator, clientIp, {
      handler: (req: Request, res: Response) => {
        // The locator is read from any origin (SPEC 4.5); a page must be able to read its 429 too.
        res.setHeader('Access-Control-Allow-Origin', '*');
        res.setHeader('Access-Control-Expose-Headers', 'RateLimit, RateLimit-Policy, Retry-After');
        sendError(req, res, tooMany(storeLocator, windowMs, res));
      },
    }),
    api: [
      limiter('api', api, apiBucket, { skip: isStoreLocator }),
      limiter('api-ip', apiPerIp, (req) => `ip:${clientIp(req)}`, { skip: isStoreLocator }),
    ],
    storeContact: [
      limiter('store-contact', storeContact, (req) => `ip:${clientIp(req)}`, { skip: (req) => !isStoreContact(req) }),
      limiter('store-contact-site', storeContactPerSiteKey, siteKeyBucket, { skip: (req) => !isStoreContact(req) }),
    ],
    async close() {
      // Dropped, not QUIT: a Redis that stopped answering would never acknowledge it (and the counters
      // written so far were acknowledged already).
      redis?.destroy();
    },
  };
}

function tooMany(limit: number, windowMs: number, res: Response): AppError {
  const retry = res.getHeader('Retry-After');
  return new AppError('RATE_LIMITED', `Too many requests: the limit is ${limit} per ${windowMs / 1000} seconds; retry after ${retry} seconds`);
}

type Redis = ReturnType<typeof createClient>;

/**
 * rate-limit-redis loads its scripts once, when the limiter is created, and keeps the promise: a load
 * that failed (Redis slower than REDIS_COMMAND_TIMEOUT_MS while the process starts, its event loop busy
 * building the app, or Redis away for a moment) failed every later count, so the limits passed every
 * request for the life of the process. Here a count that fails on a failed load loads the script again,
 * for the next one; a count that fails otherwise (Redis down or frozen) sends nothing more.
 */
export class ReloadingRedisStore extends RedisStore {
  override async increment(key: string): ReturnType<RedisStore['increment']> {
    const loading = this.incrementScriptSha;
    try {
      return await super.increment(key);
    } catch (e) {
      if (await loading.then(() => false, () => true)) {
        this.incrementScriptSha = this.loadIncrementScript();
        // Awaited by the next count (or failing it again); never an unhandled rejection.
        this.incrementScriptSha.catch(() => undefined);
      }
      throw e;
    }
  }
}

/**
 * How long a rate-limit command waits for Redis before the request passes unlimited (the store's error).
 * node-redis's own command timeout only covers a command not yet written to the socket; one written to a
 * frozen Redis would wait for ever.
 */
export const REDIS_COMMAND_TIMEOUT_MS = 1000;

/** Connects before the app serves (a store that cannot load its scripts would never limit). */
async function connectRedis(url: string): Promise<Redis> {
  let connected = false;
  const client = createClient({
    url,
    // Fail fast while disconnected, so a request is never held waiting for Redis.
    disableOfflineQueue: true,
    // Nor while connected to a Redis that stopped answering (frozen, or cut off without a reset): a request
    // waits for a command at most REDIS_COMMAND_TIMEOUT_MS (`withTimeout`), and at most 1,000 commands wait for
    // their replies at once (the next ones fail at once), so they cannot pile up in memory either.
    commandsQueueMaxLength: 1000,
    socket: {
      connectTimeout: 5000,
      reconnectStrategy: (retries: number) => (!connected && retries >= 3 ? new Error(`Redis at ${redact(url)} is unreachable`) : Math.min(100 * 2 ** retries, 2000)),
    },
  });
  let quiet = false; // one warning per outage, not one per reconnection attempt
  client.on('error', (err: unknown) => {
    if (!quiet) logger.warn({ err }, 'redis error; rate limits pass requests until it is back');
    quiet = true;
  });
  client.on('ready', () => (quiet = false));
  await client.connect();
  connected = true;
  return client as Redis;
}

const redact = (url: string) => url.replace(/\/\/[^@/]*@/, '//***@');
