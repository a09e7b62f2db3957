import path from 'node:path';
import { z } from 'zod';
import { parseDistance } from './geo/distance';

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

const schema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  DATABASE_URL: z.string().url().optional(),
  DATA_DIR: z.string().min(1).default('.data'),
  EMBEDDED_PG_PORT: z.coerce.number().int().min(1).max(65535).default(54329),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  STRICT_PARAMS: bool.default(false),
  SEED_DEMO: bool.default(true),
  SEARCH_BACKEND: z.enum(['postgres', 'elasticsearch']).default('postgres'),
  ELASTICSEARCH_URL: z.string().url().optional(),
  ELASTICSEARCH_INDEX_PREFIX: z.string().regex(/^[a-z0-9][a-z0-9_-]*$/).default('leadnet_'),
  SEARCH_INDEXER: bool.default(true),
  GEOCODER: z.enum(['offline', 'http', 'none']).default('offline'),
  GEOCODER_URL: z.string().url().optional(),
  GEOCODER_TIMEOUT_MS: z.coerce.number().int().min(1).max(60000).default(3000),
  STORE_LOCATOR_SCALE: distance('5mi').refine((m) => m > 0, 'must be above 0'),
  STORE_LOCATOR_OFFSET: distance('0mi'),
  STORE_LOCATOR_DECAY: z.coerce.number().gt(0).lt(1).default(0.5),
  STORE_LOCATOR_MAX_AGE: z.coerce.number().int().min(0).max(86400).default(60),
  LOCATOR_TILE_URL: z.string().refine((v) => /^(https?:\/\/|\/)\S+$/.test(v) && ['{z}', '{x}', '{y}'].every((p) => v.includes(p)), 'must be a tile URL template with {z}, {x} and {y}').default('https://tile.openstreetmap.org/{z}/{x}/{y}.png'),
  LOCATOR_TILE_ATTRIBUTION: z.string().default('&copy; <a href="https://www.openstreetmap.org/copyright">OpenStreetMap</a> contributors'),
});

export interface Config {
  port: number;
  /** External PostgreSQL; when absent an embedded one is started under `dataDir`. */
  databaseUrl?: string;
  dataDir: string;
  embeddedPgPort: number;
  logLevel: z.infer<typeof schema>['LOG_LEVEL'];
  /** Unpermitted attributes give 422 `unpermitted` instead of being dropped. */
  strictParams: boolean;
  seedDemo: boolean;
  searchBackend: 'postgres' | 'elasticsearch';
  elasticsearchUrl?: string;
  /** Prefix of the Elasticsearch aliases and indexes (`leadnet_products`...). */
  elasticsearchIndexPrefix: string;
  /** With Elasticsearch: drain the search outbox in this process (off when a standalone indexer runs). */
  searchIndexer: boolean;
  /** PRODUCT.md section 8: `offline` (gazetteer data in packages), `http` (Nominatim-compatible) or `none`. */
  geocoder: { kind: 'offline' | 'http' | 'none'; url?: string; timeoutMs: number };
  /** PRODUCT.md section 7: the Gaussian distance score (metres). The Elasticsearch alias is `<prefix>store_locator`. */
  storeLocator: { scaleMeters: number; offsetMeters: number; decay: number; /** `Cache-Control: max-age` of locator answers, seconds. */ maxAge: number };
  /** The store finder page and widget (`src/locator-widget/`): map tiles come from outside, so they are configured. */
  locatorWidget: { tileUrl: string; tileAttribution: string };
}

export class ConfigError extends Error {}

/** Parses and validates the environment; a bad value throws a message naming the variable. */
export function parseConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const present = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const result = schema.safeParse(present);
  if (!result.success) {
    const problems = result.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
    throw new ConfigError(`Invalid configuration: ${problems.join('; ')}`);
  }
  const e = result.data;
  if (e.SEARCH_BACKEND === 'elasticsearch' && !e.ELASTICSEARCH_URL) {
    throw new ConfigError('Invalid configuration: ELASTICSEARCH_URL is required when SEARCH_BACKEND=elasticsearch');
  }
  if (e.GEOCODER === 'http' && !e.GEOCODER_URL) {
    throw new ConfigError('Invalid configuration: GEOCODER_URL is required when GEOCODER=http');
  }
  return {
    port: e.PORT,
    databaseUrl: e.DATABASE_URL,
    dataDir: path.resolve(e.DATA_DIR),
    embeddedPgPort: e.EMBEDDED_PG_PORT,
    logLevel: e.LOG_LEVEL,
    strictParams: e.STRICT_PARAMS,
    seedDemo: e.SEED_DEMO,
    searchBackend: e.SEARCH_BACKEND,
    elasticsearchUrl: e.ELASTICSEARCH_URL,
    elasticsearchIndexPrefix: e.ELASTICSEARCH_INDEX_PREFIX,
    searchIndexer: e.SEARCH_INDEXER,
    geocoder: { kind: e.GEOCODER, url: e.GEOCODER_URL, timeoutMs: e.GEOCODER_TIMEOUT_MS },
    storeLocator: {
      scaleMeters: e.STORE_LOCATOR_SCALE,
      offsetMeters: e.STORE_LOCATOR_OFFSET,
      decay: e.STORE_LOCATOR_DECAY,
      maxAge: e.STORE_LOCATOR_MAX_AGE,
    },
    locatorWidget: { tileUrl: e.LOCATOR_TILE_URL, tileAttribution: e.LOCATOR_TILE_ATTRIBUTION },
  };
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
