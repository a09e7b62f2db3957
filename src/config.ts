import os from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { parseDistance } from './geo/distance';
import type { GeocoderConfig } from './geo/factory';
import { LOG_LEVELS } from './logger';
import { HEAP_LIMIT_BYTES, cacheBudget } from './memory';

export { LOG_LEVELS };
import type { DatabaseLimits } from './db/pool';

const bool = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'])
  .transform((v) => v === 'true' || v === '1' || v === 'yes');

/** A distance with a unit (`5mi`), in metres. */
const distance = (fallback: string) =>
  z.string().default(fallback).transform((v, ctx) => {
    const metres = parseDistance(v);
    if (metres === null || !Number.isFinite(metres)) {
      ctx.addIssue({ code: 'custom', message: 'must be a distance such as 5mi or 8km' });
      return z.NEVER;
    }
    return metres;
  });

/** Where lists and the store locator search: PostgreSQL itself, or an Elasticsearch or OpenSearch cluster. */
export const SEARCH_BACKENDS = ['postgres', 'elasticsearch', 'opensearch'] as const;
export type SearchBackendKind = (typeof SEARCH_BACKENDS)[number];
/** How spans travel to the OTLP receiver (gRPC is not supported). */
export const OTLP_PROTOCOLS = ['http/protobuf', 'http/json'] as const;

const schema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  HOST: z.string().min(1).optional(),
  SHUTDOWN_TIMEOUT_MS: z.coerce.number().int().min(0).max(600000).default(10000),
  DATABASE_URL: z.string().url().optional(),
  DATA_DIR: z.string().min(1).default('.data'),
  EMBEDDED_PG_PORT: z.coerce.number().int().min(1).max(65535).default(54329),
  LOG_LEVEL: z.enum(LOG_LEVELS).default('info'),
  STRICT_PARAMS: bool.default(false),
  SEED_DEMO: bool.default(true),
  SEARCH_BACKEND: z.enum(SEARCH_BACKENDS).default('postgres'),
  SEARCH_URL: z.string().url().optional(),
  ELASTICSEARCH_URL: z.string().url().optional(),
  ELASTICSEARCH_INDEX_PREFIX: z.string().regex(/^[a-z0-9][a-z0-9_-]*$/).default('leadnet_'),
  SEARCH_INDEXER: bool.default(true),
  SEARCH_WRITE_WAIT_MS: z.coerce.number().int().min(0).max(60000).default(5000),
  SEARCH_WRITE_REFRESH: z.enum(['wait_for', 'true']).default('wait_for'),
  SEARCH_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(10_000),
  SEARCH_REINDEX_READY_TIMEOUT_MS: z.coerce.number().int().min(1000).max(86_400_000).default(600_000),
  SEARCH_MAX_RETRIES: z.coerce.number().int().min(0).max(10).default(1),
  SEARCH_MAX_RESPONSE_MB: z.coerce.number().int().min(1).max(512).default(32),
  GEOCODER: z.enum(['offline', 'http', 'none']).default('offline'),
  GEOCODER_URL: z.string().url().optional(),
  GEOCODER_TIMEOUT_MS: z.coerce.number().int().min(1).max(60000).default(3000),
  STORE_LOCATOR_SCALE: distance('5mi').refine((m) => m > 0, 'must be above 0'),
  STORE_LOCATOR_OFFSET: distance('0mi'),
  STORE_LOCATOR_DECAY: z.coerce.number().gt(0).lt(1).default(0.5),
  TRUST_PROXY: z.string().default('false').transform(trustProxy),
  REDIS_URL: z.string().url().optional(),
  OTEL_SDK_DISABLED: bool.default(false),
  OTEL_TRACES_EXPORTER: z.enum(['otlp', 'none']).optional(),
  OTEL_EXPORTER_OTLP_ENDPOINT: z.string().url().optional(),
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: z.string().url().optional(),
  OTEL_EXPORTER_OTLP_PROTOCOL: z.enum(OTLP_PROTOCOLS).optional(),
  OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: z.enum(OTLP_PROTOCOLS).optional(),
  RATE_LIMIT_WINDOW_SECONDS: z.coerce.number().int().min(1).max(86_400).default(60),
  RATE_LIMIT_API: z.coerce.number().int().min(0).default(600),
  RATE_LIMIT_API_PER_IP: z.coerce.number().int().min(0).default(3000),
  RATE_LIMIT_STORE_LOCATOR: z.coerce.number().int().min(0).default(120),
  // Visitors ask a store (docs/lead-loop.md): contact form posts per IP and per site key, per window.
  RATE_LIMIT_STORE_CONTACT: z.coerce.number().int().min(0).default(10),
  RATE_LIMIT_STORE_CONTACT_PER_SITE_KEY: z.coerce.number().int().min(0).default(300),
  // The contact form's proof-of-work (ALTCHA): the HMAC key (generated and kept in the database when unset),
  // the PBKDF2 iterations per attempt and the largest counter a browser may have to reach.
  ALTCHA_HMAC_KEY: z.string().min(32).optional(),
  ALTCHA_COST: z.coerce.number().int().min(1).max(1_000_000).default(200),
  ALTCHA_MAX_COUNTER: z.coerce.number().int().min(2).max(10_000_000).default(5000),
  ORGANISATION_CONCURRENCY: z.coerce.number().int().min(0).max(10_000).default(8),
  ORGANISATION_QUEUE: z.coerce.number().int().min(0).max(100_000).default(100),
  ORGANISATION_QUEUE_WAIT_MS: z.coerce.number().int().min(0).max(600_000).default(10_000),
  LEAD_BATCH_ITEMS_IN_FLIGHT: z.coerce.number().int().min(0).max(1_000_000).default(1000),
  GRAPHQL_CORS_ORIGINS: z.string().default('').transform(origins),
  HTTP_HEADERS_TIMEOUT_MS: z.coerce.number().int().min(1).default(10_000),
  HTTP_REQUEST_TIMEOUT_MS: z.coerce.number().int().min(1).default(30_000),
  HTTP_KEEP_ALIVE_TIMEOUT_MS: z.coerce.number().int().min(1).default(5_000),
  HTTP_IDLE_TIMEOUT_MS: z.coerce.number().int().min(1).default(120_000),
  GRAPHQL_MAX_DOCUMENT_BYTES: z.coerce.number().int().min(1024).max(1048576).default(32768),
  GRAPHQL_MAX_TOKENS: z.coerce.number().int().min(100).default(3000),
  GRAPHQL_MAX_DEPTH: z.coerce.number().int().min(1).default(10),
  GRAPHQL_MAX_ALIASES: z.coerce.number().int().min(0).default(100),
  GRAPHQL_MAX_DIRECTIVES: z.coerce.number().int().min(0).default(20),
  GRAPHQL_MAX_SELECTIONS: z.coerce.number().int().min(100).default(5000),
  GRAPHQL_MAX_FIELD_PAIRS: z.coerce.number().int().min(0).default(200),
  GRAPHQL_MAX_COST: z.coerce.number().int().min(1).default(50000),
  GRAPHQL_LIST_FACTOR: z.coerce.number().int().min(1).default(10),
  GRAPHQL_INTROSPECTION: bool.default(true),
  GRAPHQL_SUGGESTIONS: bool.default(true),
  WEBHOOK_WORKER: bool.default(true),
  WEBHOOK_POLL_MS: z.coerce.number().int().min(10).max(60000).default(1000),
  WEBHOOK_TIMEOUT_MS: z.coerce.number().int().min(100).max(60000).default(10000),
  WEBHOOK_MAX_BODY_BYTES: z.coerce.number().int().min(1024).max(10_000_000).default(256 * 1024),
  WEBHOOK_RETRY_HOURS: z.coerce.number().min(24).max(24 * 14).default(24),
  WEBHOOK_DISABLE_AFTER_HOURS: z.coerce.number().min(1).max(24 * 30).default(72),
  WEBHOOK_SECRET_KEY: z.string().min(32).optional(),
  WEBHOOK_ALLOW_PRIVATE_URLS: bool.default(false),
  LEAD_EVENTS_RETENTION_DAYS: z.coerce.number().int().min(2).max(3650).default(30),
  // E-mail notifications (src/modules/notifications, docs/notifications.md).
  SMTP_URL: z.string().regex(/^smtps?:\/\/\S+$/, 'must be an smtp:// or smtps:// URL').optional(),
  SMTP_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(30_000),
  NOTIFICATION_FROM: z.string().min(3).default('leadnet <no-reply@leadnet.invalid>'),
  NOTIFICATION_SECRET: z.string().min(32).optional(),
  NOTIFICATION_WORKER: bool.default(true),
  NOTIFICATION_POLL_MS: z.coerce.number().int().min(10).max(60000).default(1000),
  NOTIFICATION_RETRY_HOURS: z.coerce.number().min(1).max(24 * 7).default(24),
  NOTIFICATION_DIGEST_HOUR: z.coerce.number().int().min(0).max(23).default(7),
  PUBLIC_URL: z.string().regex(/^https?:\/\/[^\s?#]+$/, 'must be an http(s) URL without query').default('http://localhost:3000'),
  NOTIFICATION_LEAD_URL: z.string().refine((v) => /^https?:\/\/\S+$/.test(v) && v.includes('{id}'), 'must be an http(s) URL template with {id}').optional(),
  // Operations: database waits, logs, metrics, replicas (README "Operations").
  DB_POOL_SIZE: z.coerce.number().int().min(1).max(200).optional(),
  DB_STATEMENT_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(5000),
  DB_ACQUIRE_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(2000),
  DB_PREPARED_STATEMENTS: z.coerce.number().int().min(0).max(10_000).default(200),
  LOG_FORMAT: z.enum(['auto', 'json', 'pretty']).default('auto'),
  METRICS_TOKEN: z.string().min(16, 'must be at least 16 characters').optional(),
  API_KEY_CACHE_TTL_MS: z.coerce.number().int().min(0).max(60_000).default(10_000),
  WORKER_LOCK_RETRY_MS: z.coerce.number().int().min(100).max(600_000).default(2000),
  STORE_LOCATOR_MAX_AGE: z.coerce.number().int().min(0).max(86400).default(60),
  STORE_LOCATOR_HELD_COMPANIES: z.coerce.number().int().min(0).max(1000).default(16),
  // Default: its share of the heap (src/memory.ts).
  STORE_LOCATOR_HELD_MB: z.coerce.number().int().min(1).max(65_536).optional(),
  // docs/locator-demand.md: what visitors searched for, counted in memory and flushed.
  LOCATOR_DEMAND: bool.default(true),
  LOCATOR_DEMAND_FLUSH_MS: z.coerce.number().int().min(100).max(300_000).default(5000),
  LOCATOR_DEMAND_MAX_KEYS: z.coerce.number().int().min(1).max(1_000_000).default(20_000),
  LOCATOR_DEMAND_MAX_KB: z.coerce.number().int().min(1).max(1_048_576).default(8192),
  LOCATOR_DEMAND_FAR_KM: z.coerce.number().min(1).max(20_000).default(50),
  LOCATOR_DEMAND_RETENTION_DAYS: z.coerce.number().int().min(1).max(3660).default(400),
  LOCATOR_TILE_URL: z.string().refine((v) => /^(https?:\/\/|\/)\S+$/.test(v) && ['{z}', '{x}', '{y}'].every((p) => v.includes(p)), 'must be a tile URL template with {z}, {x} and {y}').default('https://tile.openstreetmap.org/{z}/{x}/{y}.png'),
  LOCATOR_TILE_ATTRIBUTION: z.string().default('&copy; <a href="https://www.openstreetmap.org/copyright">OpenStreetMap</a> contributors'),
});

/** express's `trust proxy`: `false`, `true`, a hop count, or addresses/subnets (`loopback, 10.0.0.0/8`). */
function trustProxy(v: string): boolean | number | string {
  if (v === 'true' || v === 'false') return v === 'true';
  return /^\d+$/.test(v) ? Number(v) : v;
}

/** A comma-separated list of exact origins (`https://a.example, https://b.example`). */
function origins(v: string, ctx: z.RefinementCtx): string[] {
  const list = v.split(',').map((o) => o.trim()).filter(Boolean);
  for (const o of list) {
    if (!/^https?:\/\/[^/\s]+$/.test(o)) ctx.addIssue({ code: 'custom', message: `${o} is not an origin such as https://app.example.com` });
  }
  return list;
}

/** Each organisation's share of this process (src/http/fair-share.ts). */
export interface FairShareOptions {
  /** Requests of one organisation running at once in this process (0: no limit). */
  inFlight: number;
  /** Requests of one organisation waiting for a turn; one more is refused at once. */
  queue: number;
  /** How long a request waits for a turn before it is refused. */
  waitMs: number;
}

export interface Config {
  port: number;
  /** The interface to listen on; absent: every interface (Node's default). */
  host?: string;
  /** How long a shutdown waits for in-flight requests before closing their connections. */
  shutdownTimeoutMs: number;
  /** External PostgreSQL; when absent an embedded one is started under `dataDir`. */
  databaseUrl?: string;
  dataDir: string;
  embeddedPgPort: number;
  logLevel: z.infer<typeof schema>['LOG_LEVEL'];
  /** Unpermitted attributes give 422 `unpermitted` instead of being dropped. */
  strictParams: boolean;
  seedDemo: boolean;
  searchBackend: SearchBackendKind;
  /** The Elasticsearch or OpenSearch cluster: `SEARCH_URL`, else `ELASTICSEARCH_URL`. */
  searchUrl?: string;
  /** Prefix of the search engine's aliases and indexes (`leadnet_products`...). */
  elasticsearchIndexPrefix: string;
  /** With a search engine: drain the search outbox in this process (off when a standalone indexer runs). */
  searchIndexer: boolean;
  /**
   * Read-your-writes on a search engine: how long an acknowledged write waits for its changes to be
   * indexed and searchable (0: not at all), and how it waits for them to be searchable: for the index's
   * next refresh (`wait_for`) or by refreshing it (`true`).
   */
  searchWrites: { waitMs: number; refresh: 'wait_for' | true };
  /**
   * Each engine request's bound (no answer within `requestMs`: retried, then the list answers 503), how
   * many times a request that got no answer is retried, and how long a reindex waits for the new index's
   * replicas.
   */
  searchTimeouts: { requestMs: number; maxRetries: number; reindexReadyMs: number };
  /** The largest engine answer read (a larger one counts as no answer: src/search/elasticsearch/bounded.ts). */
  searchMaxResponseBytes: number;
  /** PRODUCT.md section 8: `offline` (gazetteer data in packages), `http` (Nominatim-compatible) or `none`. */
  geocoder: GeocoderConfig;
  /** PRODUCT.md section 7: the Gaussian distance score (metres). The Elasticsearch alias is `<prefix>store_locator`. */
  storeLocator: { scaleMeters: number; offsetMeters: number; decay: number; /** `Cache-Control: max-age` of locator answers, seconds. */ maxAge: number;
    /** Companies whose stores a process holds for wide searches' totals and facets (0: none). */ heldCompanies: number;
    /** Memory those copies take at most, with the reads under way (bytes). */ heldBytes: number };
  /**
   * What visitors searched for (docs/locator-demand.md): `enabled` keeps counts, flushed every `flushMs`
   * from a buffer of at most `maxEntries` keys and `maxBytes`; a search whose nearest store is `farMetres`
   * or more found only far stores; days older than `retentionDays` are deleted.
   */
  locatorDemand: { enabled: boolean; flushMs: number; maxEntries: number; maxBytes: number; farMetres: number; retentionDays: number };
  /**
   * The contact form's proof-of-work (docs/lead-loop.md): `hmacKey` signs challenges (unset: one generated
   * and kept in `service_secrets`), `cost` PBKDF2 iterations per attempt, `maxCounter` the largest counter.
   */
  altcha: { hmacKey?: string; cost: number; maxCounter: number };
  /** The store finder page and widget (`src/locator-widget/`): map tiles come from outside, so they are configured. */
  locatorWidget: { tileUrl: string; tileAttribution: string };
  /** Shared state (rate-limit counters) lives here when set; in process memory otherwise. */
  redisUrl?: string;
  /**
   * Items of lead batches (a batch create, a group of single creates, an import) being written at once in
   * this process, all callers together (0: no bound); more wait their turn (src/work-budget.ts).
   */
  leadBatchItemsInFlight: number;
  /** The HTTP edge (`src/http/`): proxies, rate limits, CORS and socket timeouts. */
  http: {
    /** express `trust proxy`: only then is the client IP read from `X-Forwarded-For`. */
    trustProxy: boolean | number | string;
    /** Requests per window; 0 turns a limit off. `api` counts per API key (per IP without one). */
    rateLimit: { windowMs: number; api: number; apiPerIp: number; storeLocator: number; storeContact: number; storeContactPerSiteKey: number };
    /** Each organisation's share of this process (src/http/fair-share.ts). */
    fairShare: FairShareOptions;
    /** Origins allowed to call /graphql from a browser; empty: no CORS headers. */
    graphqlCorsOrigins: string[];
    headersTimeoutMs: number;
    requestTimeoutMs: number;
    keepAliveTimeoutMs: number;
    idleTimeoutMs: number;
  };
  /** Webhooks (src/modules/webhooks): delivery worker in this process, its poll, request and retry limits. */
  webhooks: {
    worker: boolean;
    pollMs: number;
    timeoutMs: number;
    maxBodyBytes: number;
    retryHours: number;
    disableAfterHours: number;
    /** Encrypts endpoint secrets at rest (AES-256-GCM); without it they are stored as written. */
    secretKey?: string;
    /** Lets endpoints point at private, loopback and link-local addresses (development, tests). */
    allowPrivateUrls: boolean;
    /** Lead events and delivery log rows older than this are deleted (none a pending delivery needs). */
    retentionDays: number;
  };
  /** E-mail notifications (src/modules/notifications): nothing is sent without `smtpUrl`. */
  notifications: {
    smtpUrl?: string;
    /** Connection, greeting and socket timeout of each SMTP conversation. */
    smtpTimeoutMs: number;
    from: string;
    /** Signs unsubscribe links (HMAC-SHA256); without it, unsubscribe links are refused. */
    secret?: string;
    worker: boolean;
    pollMs: number;
    retryHours: number;
    /** Hour of the day (UTC) the daily digests go out. */
    digestHour: number;
    /** The service's public base URL: unsubscribe links point at it. */
    publicUrl: string;
    /** The link to a lead in a mail, `{id}` replaced by its id. */
    leadUrl: string;
  };
  /** Pool size and the bounds on every wait for PostgreSQL (src/db/pool.ts). */
  database: DatabaseLimits;
  /** `auto`: colored, readable lines when stdout is a terminal, JSON otherwise (src/logger.ts reads it). */
  logFormat: 'auto' | 'json' | 'pretty';
  /** When set, GET /metrics needs `Authorization: Bearer <token>`. */
  metricsToken?: string;
  /** How often a standby replica tries to take over an outbox worker (src/db/leader.ts). */
  workerLockRetryMs: number;
  /**
   * How long a key's caller may be kept in memory (src/auth/caller-cache.ts; 0: every request reads its
   * key). Changes to keys, users and assignments empty it at once through a database notification.
   */
  apiKeyCacheTtlMs: number;
  /** GraphQL cost control (src/graphql/cost.ts); the bounds of client input are in src/limits.ts. */
  graphql: GraphqlLimits;
  /**
   * OpenTelemetry traces (docs/tracing.md), null when off: on when `OTEL_TRACES_EXPORTER=otlp` or an OTLP
   * endpoint is set, unless `OTEL_SDK_DISABLED=true` or `OTEL_TRACES_EXPORTER=none`. The exporter reads
   * its other `OTEL_EXPORTER_OTLP_*` variables (endpoint, headers, timeout) itself, the sampler `OTEL_TRACES_SAMPLER*`.
   */
  tracing: { protocol: (typeof OTLP_PROTOCOLS)[number] } | null;
}

export interface GraphqlLimits {
  /** Bytes of the `query` text, checked before it is parsed. */
  maxDocumentBytes: number;
  /** Lexical tokens of the document (graphql-js `parse` `maxTokens`). */
  maxTokens: number;
  maxDepth: number;
  maxAliases: number;
  maxDirectives: number;
  /**
   * Selections of the document with every fragment spread expanded (fragment sizes memoized), counted
   * before any validation rule or cost estimate walks it.
   */
  maxSelections: number;
  /** Pairs of same-named fields (and of fragments) in one selection set, which validation compares pairwise. */
  maxFieldPairs: number;
  /** Estimated cost: each object 1, each list multiplied by its page size (or `listFactor`). */
  maxCost: number;
  /** Assumed length of a list field that takes no page size (`Lead.leadActivities`...). */
  listFactor: number;
  /** For callers with a key (callers without one never reach parsing). */
  introspection: boolean;
  /** "Did you mean ...?" in validation errors, for callers with a key. */
  suggestions: boolean;
}

export class ConfigError extends Error {}

/**
 * Database connections per process when `DB_POOL_SIZE` is not set: 10 for an external PostgreSQL; with the
 * embedded one, which shares this machine's cores with the service, twice the cores (4 to 10). Ten busy
 * backends on 2 cores take the CPU from the event loop (`/healthz` p99 110 ms under `npm run churn`, 66 ms
 * with 4), and the requests then wait on the CPU, not on connections.
 */
export function defaultPoolSize(databaseUrl: string | undefined, cores = os.availableParallelism()): number {
  return databaseUrl ? 10 : Math.min(10, Math.max(4, 2 * cores));
}

/** Parses and validates the environment; a bad value throws a message naming the variable. */
export function parseConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const present = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const result = schema.safeParse(present);
  if (!result.success) {
    const problems = result.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
    throw new ConfigError(`Invalid configuration: ${problems.join('; ')}`);
  }
  const e = result.data;
  const searchUrl = e.SEARCH_URL ?? e.ELASTICSEARCH_URL;
  if (e.SEARCH_BACKEND !== 'postgres' && !searchUrl) {
    throw new ConfigError(`Invalid configuration: SEARCH_URL is required when SEARCH_BACKEND=${e.SEARCH_BACKEND}`);
  }
  if (e.GEOCODER === 'http' && !e.GEOCODER_URL) {
    throw new ConfigError('Invalid configuration: GEOCODER_URL is required when GEOCODER=http');
  }
  if (e.SMTP_URL && !e.NOTIFICATION_SECRET) {
    throw new ConfigError('Invalid configuration: NOTIFICATION_SECRET (at least 32 characters) is required when SMTP_URL is set: it signs unsubscribe links');
  }
  // The engine answers being read at once hold up to SEARCH_MAX_RESPONSE_MB, and parsing them takes as much
  // again and more: a bound above a quarter of the heap could fill it (npm run start:prod caps it at 192 MB).
  const heapMb = Math.floor(HEAP_LIMIT_BYTES / 1024 / 1024);
  if (e.SEARCH_BACKEND !== 'postgres' && e.SEARCH_MAX_RESPONSE_MB > heapMb / 4) {
    throw new ConfigError(
      `Invalid configuration: SEARCH_MAX_RESPONSE_MB (${e.SEARCH_MAX_RESPONSE_MB}) must be at most a quarter of this process's heap (${heapMb} MB; LEADNET_HEAP_MB for npm run start:prod)`,
    );
  }
  if (e.HTTP_HEADERS_TIMEOUT_MS > e.HTTP_REQUEST_TIMEOUT_MS) {
    throw new ConfigError('Invalid configuration: HTTP_HEADERS_TIMEOUT_MS must not exceed HTTP_REQUEST_TIMEOUT_MS');
  }
  return {
    port: e.PORT,
    host: e.HOST,
    shutdownTimeoutMs: e.SHUTDOWN_TIMEOUT_MS,
    databaseUrl: e.DATABASE_URL,
    dataDir: path.resolve(e.DATA_DIR),
    embeddedPgPort: e.EMBEDDED_PG_PORT,
    logLevel: e.LOG_LEVEL,
    strictParams: e.STRICT_PARAMS,
    seedDemo: e.SEED_DEMO,
    searchBackend: e.SEARCH_BACKEND,
    searchUrl,
    elasticsearchIndexPrefix: e.ELASTICSEARCH_INDEX_PREFIX,
    searchIndexer: e.SEARCH_INDEXER,
    searchTimeouts: { requestMs: e.SEARCH_TIMEOUT_MS, maxRetries: e.SEARCH_MAX_RETRIES, reindexReadyMs: e.SEARCH_REINDEX_READY_TIMEOUT_MS },
    searchMaxResponseBytes: e.SEARCH_MAX_RESPONSE_MB * 1024 * 1024,
    searchWrites: { waitMs: e.SEARCH_WRITE_WAIT_MS, refresh: e.SEARCH_WRITE_REFRESH === 'true' ? true : 'wait_for' },
    geocoder: { kind: e.GEOCODER, url: e.GEOCODER_URL, timeoutMs: e.GEOCODER_TIMEOUT_MS },
    storeLocator: {
      scaleMeters: e.STORE_LOCATOR_SCALE,
      offsetMeters: e.STORE_LOCATOR_OFFSET,
      decay: e.STORE_LOCATOR_DECAY,
      maxAge: e.STORE_LOCATOR_MAX_AGE,
      heldCompanies: e.STORE_LOCATOR_HELD_COMPANIES,
      heldBytes: e.STORE_LOCATOR_HELD_MB === undefined ? cacheBudget('store_locator_held') : e.STORE_LOCATOR_HELD_MB * 1024 * 1024,
    },
    locatorDemand: {
      enabled: e.LOCATOR_DEMAND,
      flushMs: e.LOCATOR_DEMAND_FLUSH_MS,
      maxEntries: e.LOCATOR_DEMAND_MAX_KEYS,
      maxBytes: e.LOCATOR_DEMAND_MAX_KB * 1024,
      farMetres: e.LOCATOR_DEMAND_FAR_KM * 1000,
      retentionDays: e.LOCATOR_DEMAND_RETENTION_DAYS,
    },
    redisUrl: e.REDIS_URL,
    leadBatchItemsInFlight: e.LEAD_BATCH_ITEMS_IN_FLIGHT,
    http: {
      trustProxy: e.TRUST_PROXY,
      rateLimit: {
        windowMs: e.RATE_LIMIT_WINDOW_SECONDS * 1000,
        api: e.RATE_LIMIT_API,
        apiPerIp: e.RATE_LIMIT_API_PER_IP,
        storeLocator: e.RATE_LIMIT_STORE_LOCATOR,
        storeContact: e.RATE_LIMIT_STORE_CONTACT,
        storeContactPerSiteKey: e.RATE_LIMIT_STORE_CONTACT_PER_SITE_KEY,
      },
      fairShare: { inFlight: e.ORGANISATION_CONCURRENCY, queue: e.ORGANISATION_QUEUE, waitMs: e.ORGANISATION_QUEUE_WAIT_MS },
      graphqlCorsOrigins: e.GRAPHQL_CORS_ORIGINS,
      headersTimeoutMs: e.HTTP_HEADERS_TIMEOUT_MS,
      requestTimeoutMs: e.HTTP_REQUEST_TIMEOUT_MS,
      keepAliveTimeoutMs: e.HTTP_KEEP_ALIVE_TIMEOUT_MS,
      idleTimeoutMs: e.HTTP_IDLE_TIMEOUT_MS,
    },
    graphql: {
      maxDocumentBytes: e.GRAPHQL_MAX_DOCUMENT_BYTES,
      maxTokens: e.GRAPHQL_MAX_TOKENS,
      maxDepth: e.GRAPHQL_MAX_DEPTH,
      maxAliases: e.GRAPHQL_MAX_ALIASES,
      maxDirectives: e.GRAPHQL_MAX_DIRECTIVES,
      maxSelections: e.GRAPHQL_MAX_SELECTIONS,
      maxFieldPairs: e.GRAPHQL_MAX_FIELD_PAIRS,
      maxCost: e.GRAPHQL_MAX_COST,
      listFactor: e.GRAPHQL_LIST_FACTOR,
      introspection: e.GRAPHQL_INTROSPECTION,
      suggestions: e.GRAPHQL_SUGGESTIONS,
    },
    webhooks: {
      worker: e.WEBHOOK_WORKER,
      pollMs: e.WEBHOOK_POLL_MS,
      timeoutMs: e.WEBHOOK_TIMEOUT_MS,
      maxBodyBytes: e.WEBHOOK_MAX_BODY_BYTES,
      retryHours: e.WEBHOOK_RETRY_HOURS,
      disableAfterHours: e.WEBHOOK_DISABLE_AFTER_HOURS,
      secretKey: e.WEBHOOK_SECRET_KEY,
      allowPrivateUrls: e.WEBHOOK_ALLOW_PRIVATE_URLS,
      retentionDays: e.LEAD_EVENTS_RETENTION_DAYS,
    },
    notifications: {
      smtpUrl: e.SMTP_URL,
      smtpTimeoutMs: e.SMTP_TIMEOUT_MS,
      from: e.NOTIFICATION_FROM,
      secret: e.NOTIFICATION_SECRET,
      worker: e.NOTIFICATION_WORKER,
      pollMs: e.NOTIFICATION_POLL_MS,
      retryHours: e.NOTIFICATION_RETRY_HOURS,
      digestHour: e.NOTIFICATION_DIGEST_HOUR,
      publicUrl: e.PUBLIC_URL.replace(/\/+$/, ''),
      leadUrl: e.NOTIFICATION_LEAD_URL ?? `${e.PUBLIC_URL.replace(/\/+$/, '')}/v1/leads/{id}`,
    },
    database: { poolSize: e.DB_POOL_SIZE ?? defaultPoolSize(e.DATABASE_URL), statementTimeoutMs: e.DB_STATEMENT_TIMEOUT_MS, acquireTimeoutMs: e.DB_ACQUIRE_TIMEOUT_MS, preparedStatements: e.DB_PREPARED_STATEMENTS },
    logFormat: e.LOG_FORMAT,
    metricsToken: e.METRICS_TOKEN,
    workerLockRetryMs: e.WORKER_LOCK_RETRY_MS,
    apiKeyCacheTtlMs: e.API_KEY_CACHE_TTL_MS,
    locatorWidget: { tileUrl: e.LOCATOR_TILE_URL, tileAttribution: e.LOCATOR_TILE_ATTRIBUTION },
    altcha: { hmacKey: e.ALTCHA_HMAC_KEY, cost: e.ALTCHA_COST, maxCounter: e.ALTCHA_MAX_COUNTER },
    tracing: tracingWanted(e) ? { protocol: e.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ?? e.OTEL_EXPORTER_OTLP_PROTOCOL ?? 'http/protobuf' } : null,
  };
}

function tracingWanted(e: z.infer<typeof schema>): boolean {
  if (e.OTEL_SDK_DISABLED || e.OTEL_TRACES_EXPORTER === 'none') return false;
  return e.OTEL_TRACES_EXPORTER === 'otlp' || e.OTEL_EXPORTER_OTLP_ENDPOINT !== undefined || e.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT !== undefined;
}

let cached: Config | undefined;

/** The process-wide configuration, parsed once. */
export function config(): Config {
  return (cached ??= parseConfig());
}

/** Forget the parsed configuration (tests change the environment between cases). */
export function resetConfig(): void {
  cached = undefined;
}
