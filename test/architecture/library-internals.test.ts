import 'reflect-metadata';
import { createHash } from 'node:crypto';
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { ApolloServer } from '@apollo/server';
import { ApolloServerPluginCacheControlDisabled, ApolloServerPluginLandingPageDisabled } from '@apollo/server/plugin/disabled';
import type { GatewayInterface } from '@apollo/server-gateway-interface';
import { Client as ElasticClient, UndiciConnection } from '@elastic/elasticsearch';
import { Entity, ManyToOne, Property } from '@mikro-orm/core';
import { MikroORM, UniqueConstraintViolationException, type EntityManager } from '@mikro-orm/postgresql';
import { Client as OpenSearchClient, Connection as OpenSearchConnection } from '@opensearch-project/opensearch';
import { buildSchema as buildSdlSchema, execute, parse, type GraphQLObjectType, type GraphQLSchema } from 'graphql';
import { compileQuery, isCompiledQuery, type CompiledQuery } from 'graphql-jit';
import { applyMiddleware, type IMiddlewareFieldMap } from 'graphql-middleware';
import { allow, deny, shield } from 'graphql-shield';
import knex from 'knex';
import { DateTime, IANAZone, Zone } from 'luxon';
import pg from 'pg';
import { Field, getMetadataStorage, ObjectType, Query, Resolver } from 'type-graphql';
import { AnswerBudget } from '../../src/answer-budget';
import type { Config } from '../../src/config';
import { BaseEntity } from '../../src/db/base.entity';
import { asInstanceOf, newInstanceOf, ref } from '../../src/db/columns';
import { ormOptions } from '../../src/db/orm-options';
import { isDatabaseUnavailable } from '../../src/db/outage';
import { positional, query, usePreparedStatements } from '../../src/db/sql';
import { parsedDocuments, persistedQueries } from '../../src/graphql/documents';
import { frozenVariables, jitGateway, runCompiled } from '../../src/graphql/jit';
import { buildBareSchema, withoutAllowedFields } from '../../src/graphql/schema';
import { ReloadingRedisStore } from '../../src/http/rate-limit';
import { configureServer } from '../../src/http/server';
import { BudgetedCache, keyValueCache } from '../../src/memory';
import { parseQueryString } from '../../src/rest/query';
import { boundedElasticConnection, boundedOpenSearchConnection } from '../../src/search/elasticsearch/bounded';
import { createTestDatabase } from '../support/database';

/**
 * Where the service depends on a library's internals or undocumented behaviour, each assumption is
 * checked here against the installed library, and a failure names it and the file relying on it
 * (docs/architecture.md, "Library internals we rely on"). After an upgrade that fails one, change the
 * file named (or drop the trick) before changing the test.
 */
async function assume(assumption: string, check: () => unknown): Promise<void> {
  try {
    await check();
  } catch (e) {
    throw new Error(`Library assumption broken: ${assumption}\n\n${e instanceof Error ? e.message : String(e)}`);
  }
}

/** Rejects after `ms` (a check that would otherwise wait for jest's timeout says what it waited for). */
function within<T>(ms: number, what: string, promise: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout;
  const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what} did not happen within ${ms} ms`)), ms)));
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

// --- type-graphql, graphql-jit: src/graphql/schema.ts, src/db/columns.ts --------------------------------

@ObjectType()
class Widget {
  static constructed = 0;

  constructor() {
    Widget.constructed++;
  }

  @Field(() => String)
  name!: string;

  @Field(() => String, { name: 'renamed' })
  other!: string;

  @Field(() => String)
  get upper(): string {
    return this.name.toUpperCase();
  }

  @Field(() => String)
  shout(): string {
    return `${this.name}!`;
  }
}

@Resolver()
class WidgetResolver {
  @Query(() => Widget)
  widget(): Widget {
    // A read-model row as the repositories build them (src/db/columns.ts): no constructor runs.
    return asInstanceOf(Widget, { name: 'w', other: 'o' });
  }
}

describe('type-graphql and graphql-jit (src/graphql/schema.ts, src/db/columns.ts)', () => {
  let schema: GraphQLSchema;
  const widgetFields = () => (schema.getType('Widget') as GraphQLObjectType).getFields();

  beforeAll(() => {
    schema = buildBareSchema([{ resolvers: [WidgetResolver] }]);
  });

  test('type-graphql metadata: fields, field resolvers and object types have the shape the schema builder rewrites', async () => {
    const storage = getMetadataStorage();
    await assume(
      'src/graphql/schema.ts (readPropertiesDirectly) and src/modules/response-times/response-stats.ts read type-graphql\'s getMetadataStorage().fields: ' +
        'one entry per @Field with target, name, schemaName, getType(), middlewares, roles and the `simple` option',
      () => {
        const name = storage.fields.find((f) => f.target === Widget && f.name === 'name');
        expect(name).toMatchObject({ name: 'name', schemaName: 'name', target: Widget });
        expect(name?.getType()).toBe(String);
        expect('simple' in name!).toBe(true);
        expect(storage.fields.find((f) => f.target === Widget && f.name === 'other')).toMatchObject({ schemaName: 'renamed' });
      },
    );
    await assume(
      'src/graphql/schema.ts (readGettersDirectly) finds getter fields in type-graphql\'s getMetadataStorage().fieldResolvers (kind "internal", target, ' +
        'schemaName, methodName) and their classes in objectTypes (name, target)',
      () => {
        expect(storage.fieldResolvers.find((r) => r.target === Widget && r.methodName === 'upper')).toMatchObject({ kind: 'internal', schemaName: 'upper' });
        expect(storage.objectTypes.find((o) => o.target === Widget)).toMatchObject({ name: 'Widget' });
      },
    );
  });

  test('a simple field and a getter field have no resolver in the built schema; a renamed field and a method keep type-graphql\'s', async () => {
    await assume(
      'src/graphql/schema.ts (readPropertiesDirectly) sets `simple: true` on type-graphql\'s field metadata before buildSchemaSync: type-graphql then ' +
        'gives the field no resolve function (graphql-jit compiles it into a property read)',
      () => expect(widgetFields().name.resolve).toBeUndefined(),
    );
    await assume(
      'src/graphql/schema.ts (readGettersDirectly) clears the resolve of a getter field on the schema type-graphql built: the GraphQL field objects ' +
        'are mutable and read at execution',
      () => expect(widgetFields().upper.resolve).toBeUndefined(),
    );
    expect(widgetFields().renamed.resolve).toBeInstanceOf(Function);
    expect(widgetFields().shout.resolve).toBeInstanceOf(Function);
  });

  test('graphql-jit compiles a field without a resolver into a property read, and it answers as graphql-js does', async () => {
    const document = parse('{ widget { name upper renamed shout } }');
    const compiled = compileQuery(schema, document, undefined, { debug: true } as never) as CompiledQuery & { __DO_NOT_USE_THIS_OR_YOU_WILL_BE_FIRED_compilation?: string };
    await assume(
      'src/graphql/schema.ts removes resolvers so that graphql-jit reads the property inline: graphql-jit calls a resolver only for a field with a resolve ' +
        'function (its debug compilation names each called one `<Type><field>Resolver`)',
      () => {
        expect(isCompiledQuery(compiled)).toBe(true);
        const code = compiled.__DO_NOT_USE_THIS_OR_YOU_WILL_BE_FIRED_compilation ?? '';
        expect(code).toContain('WidgetshoutResolver');
        expect(code).not.toContain('WidgetnameResolver');
        expect(code).not.toContain('WidgetupperResolver');
      },
    );
    const expected = { data: { widget: { name: 'w', upper: 'W', renamed: 'o', shout: 'w!' } } };
    await assume('graphql-jit reads a getter on the value\'s prototype chain for a field without a resolver (src/graphql/schema.ts, readGettersDirectly)', async () => {
      expect(await compiled.query(undefined, {}, {})).toEqual(expected);
      expect(await execute({ schema, document })).toEqual(expected);
    });
  });

  test('type-graphql takes a row built in its class\'s prototype as an instance, without constructing one', async () => {
    Widget.constructed = 0;
    const result = await execute({ schema, document: parse('{ widget { shout renamed } }') });
    await assume(
      'src/db/columns.ts (asInstanceOf) builds rows on the entity prototype because type-graphql\'s convertToType passes a value that is `instanceof` the ' +
        'class through as it is (a plain object would become a new instance per resolved field)',
      () => {
        expect(result).toEqual({ data: { widget: { shout: 'w!', renamed: 'o' } } });
        expect(Widget.constructed).toBe(0);
      },
    );
  });

  test('graphql-jit leaves frozen variables as they are', async () => {
    const sdl = buildSdlSchema(`
      input Where { status: String }
      input Opts { page: Int = 1, where: Where }
      type Query { echo(q: String, opts: Opts): String }
    `);
    sdl.getQueryType()!.getFields().echo.resolve = (_parent, args) => JSON.stringify(args);
    const document = parse('query List($q: String, $opts: Opts) { echo(q: $q, opts: $opts) }');
    const operation = document.definitions[0] as Parameters<typeof runCompiled>[2];
    const compiled = compileQuery(sdl, document, 'List') as CompiledQuery;
    const variables = frozenVariables({ q: 'x', opts: { where: { status: 'Won' } } });
    await assume(
      'src/graphql/jit.ts (runCompiled, frozenVariables) and src/rest/query.ts hand graphql-jit the same deep-frozen variables object for every request ' +
        'with one query string: graphql-jit coerces them into an object of its own and never writes into the one it is given (its code is strict mode)',
      async () => {
        for (let i = 0; i < 2; i++) {
          const result = await runCompiled(compiled, sdl, operation, {}, variables);
          expect(result.errors).toBeUndefined();
          expect(JSON.parse((result.data as { echo: string }).echo)).toEqual({ q: 'x', opts: { page: 1, where: { status: 'Won' } } });
        }
        expect(variables).toEqual({ q: 'x', opts: { where: { status: 'Won' } } });
      },
    );
  });
});

// --- graphql-shield and graphql-middleware: src/graphql/schema.ts (withoutAllowedFields) -----------------

describe('graphql-shield and graphql-middleware (src/graphql/schema.ts)', () => {
  test('shield\'s middleware is one wrapper per field; with the allowed ones dropped, the rest still decide and allowed fields keep no resolver', async () => {
    const schema = buildSdlSchema(`
      type Query { open: Item, closed: Item, unlisted: Item }
      type Item { a: String, b: String }
      type Secret { x: String }
    `);
    const item = { a: 'a', b: 'b' };
    for (const field of Object.values(schema.getQueryType()!.getFields())) field.resolve = () => item;
    const rules = { Query: { open: allow, closed: deny }, Item: allow };
    const permissions = shield(rules, { fallbackRule: deny, allowExternalErrors: true });
    const generated = permissions.generate(schema) as IMiddlewareFieldMap;
    await assume(
      'src/graphql/schema.ts (withoutAllowedFields) filters graphql-shield\'s generate(schema) as a map of type name -> field name -> middleware, ' +
        'one per field of every object type (allowed ones included), never a middleware for a whole type',
      () => {
        for (const type of ['Query', 'Item', 'Secret']) {
          const fields = generated[type] as Record<string, unknown>;
          expect(typeof fields).toBe('object');
          expect(Object.keys(fields).sort()).toEqual(Object.keys((schema.getType(type) as GraphQLObjectType).getFields()).sort());
        }
      },
    );
    const guarded = applyMiddleware(schema, withoutAllowedFields(generated, rules));
    await assume(
      'graphql-middleware\'s applyMiddleware wraps only the fields its map lists (src/graphql/schema.ts drops the wrappers of fields allowed outright): ' +
        'the others keep their resolve (none: a property read for graphql-jit), and denied fields are still refused',
      async () => {
        expect((guarded.getType('Item') as GraphQLObjectType).getFields().a.resolve).toBeUndefined();
        expect(guarded.getQueryType()!.getFields().open.resolve).toBe(schema.getQueryType()!.getFields().open.resolve);
        const result = await execute({ schema: guarded, document: parse('{ open { a } closed { a } unlisted { b } }'), contextValue: {} });
        expect(result.data).toEqual({ open: { a: 'a' }, closed: null, unlisted: null });
        expect(result.errors?.map((e) => e.path?.join('.')).sort()).toEqual(['closed', 'unlisted']);
      },
    );
  });
});

// --- Apollo Server: src/graphql/jit.ts (jitGateway), src/graphql/documents.ts, src/memory.ts, src/app.ts --

describe('Apollo Server (src/graphql/jit.ts, src/graphql/documents.ts, src/app.ts)', () => {
  const schema = buildSdlSchema('type Query { widget: Widget, other: Widget } type Widget { name: String }');
  for (const field of Object.values(schema.getQueryType()!.getFields())) field.resolve = () => ({ name: 'w' });
  const seen: Array<{ queryHash: string; operationName: string | null }> = [];
  const gateway = jitGateway(schema, 1_000_000);
  const recording: GatewayInterface = {
    ...gateway,
    async load(options) {
      const { executor } = await gateway.load(options);
      return {
        executor: (requestContext) => {
          seen.push({ queryHash: requestContext.queryHash, operationName: requestContext.operationName });
          return executor!(requestContext);
        },
      };
    },
  };
  const documents = parsedDocuments();
  const persisted = persistedQueries();
  // As src/app.ts configures it.
  const apollo = new ApolloServer({
    gateway: recording,
    documentStore: keyValueCache(documents),
    cache: keyValueCache(persisted),
    plugins: [ApolloServerPluginLandingPageDisabled(), ApolloServerPluginCacheControlDisabled()],
  });
  const run = async (request: Parameters<typeof apollo.executeOperation>[0]) => {
    const { body } = await apollo.executeOperation(request, { contextValue: {} });
    if (body.kind !== 'single') throw new Error('expected a single result');
    return body.singleResult;
  };

  beforeAll(() => apollo.start());
  afterAll(() => apollo.stop());

  test('the gateway executor gets the sha256 of the text as queryHash, for a plain request and an APQ one', async () => {
    seen.length = 0;
    const text = '{ widget { name } }';
    expect(await run({ query: text })).toMatchObject({ data: { widget: { name: 'w' } } });
    await run({ query: text });
    await run({ query: '{ other { name } }' });
    await run({ query: text, extensions: { persistedQuery: { version: 1, sha256Hash: sha256(text) } } });
    await run({ extensions: { persistedQuery: { version: 1, sha256Hash: sha256(text) } } });
    await assume(
      'src/graphql/jit.ts (jitGateway) keys compiled documents by `${queryHash}:${operationName}`: Apollo passes its gateway executor the sha256 (hex) ' +
        'of the document\'s whole text as queryHash, the same for every request with that text (an APQ one too) and another for another text',
      () => expect(seen.map((s) => s.queryHash)).toEqual([sha256(text), sha256(text), sha256('{ other { name } }'), sha256(text), sha256(text)]),
    );
  });

  test('the document store holds each parsed document once, with its locations; the APQ cache holds texts', async () => {
    const text = '{ other { name } widget { name } }';
    await run({ query: text });
    const hits = documents.hits;
    await run({ query: text });
    const entries = [...documents.entries()].filter(([key]) => key.endsWith(sha256(text)));
    await assume(
      'src/graphql/documents.ts (parsedDocuments) sizes Apollo\'s documentStore entries by document.loc.end: Apollo stores the parsed DocumentNode, with ' +
        'locations, under one key per text (`<schema hash>:<sha256 of the text>`), found again for the same text',
      () => {
        expect(entries).toHaveLength(1);
        expect(entries[0][1].loc?.end).toBe(text.length);
        expect(documents.hits).toBe(hits + 1);
      },
    );
    const apq = '{ widget { name } other { name } }';
    await run({ query: apq, extensions: { persistedQuery: { version: 1, sha256Hash: sha256(apq) } } });
    await assume(
      'src/graphql/documents.ts (persistedQueries) sizes the cache Apollo is given (`cache`) as strings: Apollo keeps only APQ texts there, under ' +
        '`apq:<sha256>`',
      () => {
        const entries = [...persisted.entries()];
        expect(entries).toContainEqual([`apq:${sha256(apq)}`, apq]);
        for (const [key, value] of entries) expect({ key, value: typeof value }).toEqual({ key: expect.stringMatching(/^apq:[0-9a-f]{64}$/), value: 'string' });
      },
    );
  });

  test('with the cache-control plugin disabled, Apollo wraps no resolver of the schema', async () => {
    await run({ query: '{ widget { name } }' });
    await assume(
      'src/app.ts disables Apollo\'s cache-control plugin so that Apollo does not wrap every field\'s resolver (enablePluginsForSchemaResolvers runs ' +
        'only when a plugin has willResolveField): a field without a resolver stays a property read for graphql-jit',
      () => expect((schema.getType('Widget') as GraphQLObjectType).getFields().name.resolve).toBeUndefined(),
    );
  });
});

// --- lru-cache: src/memory.ts (BudgetedCache), src/graphql/jit.ts ---------------------------------------

describe('lru-cache (src/memory.ts, src/graphql/jit.ts)', () => {
  test('get can be overridden to count hits; sizes are computed per set, bounded, and an entry over the largest size is left out', async () => {
    const cache = new BudgetedCache<string, string>('phone_formats', { maxBytes: 16_000, sizeOf: (v) => v.length });
    await assume(
      'src/memory.ts (BudgetedCache) extends LRUCache and overrides get() to count hits and misses: get is a prototype method that has(), peek() ' +
        'and set() do not call; maxSize, maxEntrySize and sizeCalculation bound calculatedSize, and size, maxSize, calculatedSize are readable',
      () => {
        cache.set('a', 'x'.repeat(100));
        cache.set('big', 'x'.repeat(2_000));
        expect(cache.get('a')).toBe('x'.repeat(100));
        expect(cache.get('b')).toBeUndefined();
        cache.has('a');
        cache.peek('a');
        expect(cache.stats()).toMatchObject({ hits: 1, misses: 1, entries: 1, budget: 16_000 });
        expect(cache.calculatedSize).toBe(96 + 100);
      },
    );
  });

  test('an entry set again with another value is sized again', async () => {
    const cache = new BudgetedCache<string, { bytes: number }>('graphql_compiled', { maxBytes: 1_000_000, sizeOf: (v) => v.bytes });
    cache.set('k', { bytes: 10 });
    const before = cache.calculatedSize;
    cache.set('k', { bytes: 1_000 });
    await assume(
      'src/graphql/jit.ts sets a new entry object when a document is compiled: lru-cache computes an entry\'s size again when its key is set with ' +
        'another value',
      () => expect(cache.calculatedSize).toBe(before + 990),
    );
  });

  test('a ttl given with one set expires that entry', async () => {
    const cache = new BudgetedCache<string, string>('graphql_persisted', { maxBytes: 100_000, sizeOf: (v) => v.length });
    await keyValueCache(cache).set('k', 'v', { ttl: 0.02 });
    await new Promise((resolve) => setTimeout(resolve, 80));
    await assume(
      'src/memory.ts (keyValueCache) passes Apollo\'s ttl (seconds) to lru-cache\'s set() as { ttl } in milliseconds, on a cache made without a ttl',
      () => expect(cache.get('k')).toBeUndefined(),
    );
  });
});

// --- MikroORM, knex, node-postgres: src/db/sql.ts, src/db/columns.ts, src/db/write.ts ------------------

@Entity({ tableName: 'probe_owner' })
class ProbeOwner extends BaseEntity {
  @Property({ type: 'string' })
  name!: string;
}

@ObjectType()
@Entity({ tableName: 'probe_item' })
class ProbeItem extends BaseEntity {
  @Field(() => String)
  @Property({ type: 'string' })
  label!: string;

  @ManyToOne(() => ProbeOwner)
  owner!: ProbeOwner;

  @Field(() => String)
  get ownerId(): string {
    return this.owner.id;
  }
}

describe('MikroORM, knex and node-postgres (src/db/sql.ts, src/db/columns.ts, src/db/write.ts)', () => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  let orm: MikroORM;
  const log: string[] = [];
  const em = () => orm.em.fork() as EntityManager;
  const connection = () => em().getConnection() as any;

  beforeAll(async () => {
    db = await createTestDatabase();
    orm = await MikroORM.init(
      ormOptions(db.url, [ProbeOwner, ProbeItem], {
        debug: ['query'],
        logger: (message: string) => log.push(message),
        colors: false,
      }),
    );
    usePreparedStatements(200);
  });
  afterAll(async () => {
    await orm?.close(true);
    await db?.drop();
  });

  test('rows built on an entity\'s prototype get their fields as plain own properties, no accessor of MikroORM\'s running', async () => {
    const owner = '6f1c1a4e-3b5e-4c55-9a59-0f3e6c1d2b7a';
    const created = new Date('2026-01-02T03:04:05Z');
    const row = asInstanceOf(ProbeItem, { id: 'a1', createdAt: created, updatedAt: created, label: 'x', owner: ref(owner) });
    const empty = newInstanceOf(ProbeItem, ['id', 'label']);
    empty.id = 'a2';
    empty.label = 'y';
    await assume(
      'src/db/columns.ts (asInstanceOf, newInstanceOf) masks the accessors MikroORM puts on an entity\'s prototype chain (its property setters, which ' +
        'would move the value into an entity helper) with plain data properties: a row\'s fields are then its own data properties and it stays ' +
        '`instanceof` the class, whose getters still run',
      () => {
        for (const r of [row, empty]) {
          expect(r).toBeInstanceOf(ProbeItem);
          for (const key of Object.getOwnPropertyNames(r)) {
            expect({ key, descriptor: Object.getOwnPropertyDescriptor(r, key) }).toEqual({ key, descriptor: expect.objectContaining({ writable: true, enumerable: true }) });
          }
        }
        expect(Object.getOwnPropertyNames(row)).toEqual(['id', 'createdAt', 'updatedAt', 'label', 'owner']);
        expect(Object.getOwnPropertyNames(empty)).toEqual(['id', 'label']);
        expect(row.label).toBe('x');
        expect(row.ownerId).toBe(owner);
      },
    );
  });

  test('the connection: ensureConnection, executeQuery (logged as MikroORM\'s own), knex\'s pool handing out node-postgres clients', async () => {
    await assume(
      'src/db/sql.ts (query) calls MikroORM\'s connection.ensureConnection() and connection.executeQuery(sql, run, { query, params }), which runs ' +
        '`run`, returns its result and logs the statement as MikroORM logs its own (tests count statements in that log)',
      async () => {
        const c = connection();
        await c.ensureConnection();
        expect(await c.executeQuery('select 42 /* probe: executeQuery */', async () => [{ n: 42 }], { query: 'select 42 /* probe: executeQuery */', params: [] })).toEqual([{ n: 42 }]);
        expect(await query(em(), 'select ?::int as n /* probe: query */', [5])).toEqual([{ n: 5 }]);
        expect(log.filter((l) => l.includes('probe: executeQuery') || l.includes('probe: query'))).toHaveLength(2);
      },
    );
    await assume(
      'src/db/sql.ts (pooled) sends a statement outside a transaction on connection.getKnex().client.acquireConnection(), a node-postgres client ' +
        '(query({ text, values, name })), and gives it back with releaseConnection()',
      async () => {
        const client = connection().getKnex().client;
        const pg = await client.acquireConnection();
        expect((await pg.query({ text: 'select $1::int as n', values: [2], name: 'leadnet_probe_pooled' })).rows).toEqual([{ n: 2 }]);
        expect((await pg.query(`select count(*)::int as n from pg_prepared_statements where name = 'leadnet_probe_pooled'`)).rows).toEqual([{ n: 1 }]);
        client.releaseConnection(pg);
        expect(client.pool.numUsed()).toBe(0);
      },
    );
  });

  test('in a transaction: knex raw with options({ name }) and transacting(em.getTransactionContext())', async () => {
    await assume(
      'src/db/sql.ts (query) sends a statement inside the EntityManager\'s transaction as knex.raw(sql, bindings).options({ name }).transacting(' +
        'em.getTransactionContext()): knex hands `name` to node-postgres (a named, prepared statement) and runs it on the transaction\'s connection',
      () =>
        em().transactional(async (tx) => {
          const knex = (tx.getConnection() as any).getKnex();
          const trx = tx.getTransactionContext();
          const raw = knex.raw('select ?::int as n /* probe: named */', [1]);
          raw.options({ name: 'leadnet_probe_named' });
          raw.transacting(trx);
          expect((await raw).rows).toEqual([{ n: 1 }]);
          const named = await knex.raw(`select count(*)::int as n from pg_prepared_statements where name = 'leadnet_probe_named'`).transacting(trx);
          expect(named.rows).toEqual([{ n: 1 }]);
          const [{ ours }] = await tx.execute('select txid_current()::text as ours');
          const theirs = (await knex.raw('select txid_current()::text as theirs').transacting(trx)).rows[0].theirs;
          expect(theirs).toBe(ours);
        }),
    );
  });

  test('placeholders are numbered as knex numbers them', async () => {
    const knex = connection().getKnex();
    await assume(
      'src/db/sql.ts (positional) numbers `?` placeholders as knex\'s PostgreSQL client does ($1, $2, ...; `\\?` a literal question mark), so a ' +
        'statement reads the same through knex (in a transaction) and straight through node-postgres',
      () => {
        const statements: Array<[string, unknown[]]> = [
          ['select ?::int + ?::int as n', [1, 2]],
          [`select '{"a": 1}'::jsonb \\? ? as has, '\\?' as mark, ? as last`, ['a', 'z']],
        ];
        for (const [sql, bindings] of statements) expect(positional(sql, bindings)).toBe(knex.raw(sql, bindings).toSQL().toNative().sql);
      },
    );
  });

  test('a unique violation is MikroORM\'s exception class, with the constraint\'s name', async () => {
    const e0 = em();
    await e0.execute('create table probe_unique (k text constraint probe_unique_k unique)');
    const insertTwice = async (run: (em: EntityManager) => Promise<unknown>) => {
      await e0.execute('delete from probe_unique');
      await run(em());
      return run(em()).then(
        () => null,
        (e: unknown) => e,
      );
    };
    const viaQuery = await insertTwice((e) => query(e, 'insert into probe_unique values (?)', ['a']));
    const viaTransaction = await insertTwice((e) => e.transactional((tx) => tx.execute(`insert into probe_unique values ('a')`)));
    await assume(
      'src/db/write.ts (transactional) maps a UniqueConstraintViolationException to 422 `taken` by its `constraint`: MikroORM\'s exception classes ' +
        'copy node-postgres\'s error fields (code, constraint), for its own statements and for those src/db/sql.ts converts with ' +
        'em.getDriver().convertException()',
      () => {
        for (const e of [viaQuery, viaTransaction]) {
          expect(e).toBeInstanceOf(UniqueConstraintViolationException);
          expect(e).toMatchObject({ code: '23505', constraint: 'probe_unique_k' });
        }
      },
    );
  });

  test('a database out of reach is recognised by what node-postgres, knex and tarn say', async () => {
    const caught = (promise: Promise<unknown>) => promise.then(() => new Error('no error'), (e: unknown) => e);
    const [silent, closing] = [await tcpServer('silent'), await tcpServer('closing')];
    const errors: Record<string, unknown> = {};
    try {
      errors['connecting to a server that never answers'] = await caught(
        new pg.Client({ connectionString: `postgres://x@127.0.0.1:${silent.port}/x`, connectionTimeoutMillis: 100 }).connect(),
      );
      errors['connecting to a server that hangs up'] = await caught(new pg.Client({ connectionString: `postgres://x@127.0.0.1:${closing.port}/x` }).connect());
      const slow = new pg.Client({ connectionString: db.url, query_timeout: 100 });
      await slow.connect();
      errors['a statement with no answer in time'] = await caught(slow.query('select pg_sleep(1)'));
      await slow.end();
      const ended = new pg.Client({ connectionString: db.url });
      await ended.connect();
      await ended.end();
      errors['a statement on a closed client'] = await caught(ended.query('select 1'));
      // Its one connection is held below, so the next statement waits 1 s for it (long enough to make the first on a busy machine).
      const pool = knex({ client: 'pg', connection: db.url, pool: { min: 0, max: 1 }, acquireConnectionTimeout: 1000 });
      try {
        const held = await pool.client.acquireConnection();
        errors['no connection free in the pool in time'] = await caught(pool.raw('select 1'));
        pool.client.releaseConnection(held);
        const trx = await pool.transaction();
        await trx.commit();
        errors['a statement on a transaction already over'] = await caught(trx.raw('select 1'));
      } finally {
        await pool.destroy();
      }
    } finally {
      await Promise.all([silent.close(), closing.close()]);
    }
    await assume(
      'src/db/outage.ts (isDatabaseUnavailable) tells an outage (503) from a bug (500) by the messages and names of node-postgres\', knex\'s and ' +
        'tarn\'s errors, which carry no SQLSTATE: "timeout expired", "Connection terminated...", "Query read timeout", "Client was closed and is not ' +
        'queryable", KnexTimeoutError "Knex: Timeout acquiring a connection...", "Transaction query already complete..."',
      () => {
        for (const [what, e] of Object.entries(errors)) {
          expect({ what, message: (e as Error).message, unavailable: isDatabaseUnavailable(e) }).toEqual({ what, message: expect.any(String), unavailable: true });
        }
      },
    );
  });
});

/** A TCP server on 127.0.0.1 that accepts connections and then never answers (`silent`) or closes them at once. */
async function tcpServer(behaviour: 'silent' | 'closing'): Promise<{ port: number; close(): Promise<void> }> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    if (behaviour === 'closing') socket.destroy();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    close: () => {
      for (const socket of sockets) socket.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

// --- qs: src/rest/query.ts ------------------------------------------------------------------------------

test('qs hands every parameter name, brackets included, to the decoder as a key (src/rest/query.ts)', async () => {
  await assume(
    'src/rest/query.ts refuses parameter names and bracket keys named like a property of every object in qs\'s decoder: qs calls it with type ' +
      '"key" for each whole key (`opts[where][__proto__][x]`) before splitting it, so no such name reaches the parsed object (qs drops `__proto__` silently)',
    () => {
      expect(() => parseQueryString('/v1/leads?opts[where][__proto__][status]=x')).toThrow(/no parameter or key is named __proto__/);
      expect(() => parseQueryString('/v1/leads?opts[order][constructor]=asc')).toThrow(/no parameter or key is named constructor/);
      expect(parseQueryString('/v1/leads?opts[where][status]=constructor')).toEqual({ opts: { where: { status: 'constructor' } } });
    },
  );
});

// --- rate-limit-redis: src/http/rate-limit.ts -----------------------------------------------------------

test('rate-limit-redis keeps its increment script\'s load as a promise its counts await (src/http/rate-limit.ts)', async () => {
  let failing = 2;
  const store = new ReloadingRedisStore({
    sendCommand: async (...args: string[]) => {
      if (args[0] === 'SCRIPT') {
        if (failing-- > 0) throw new Error('timed out');
        return 'f00d';
      }
      if (args[0] === 'EVALSHA') return [1, 60_000];
      throw new Error(`unexpected ${args[0]}`);
    },
  });
  await store.init({ windowMs: 60_000 } as Parameters<ReloadingRedisStore['init']>[0]).catch(() => undefined);
  await assume(
    'src/http/rate-limit.ts (ReloadingRedisStore) loads the increment script again after a failed load: rate-limit-redis\'s RedisStore keeps that load ' +
      'in `incrementScriptSha` (awaited by each increment\'s EVALSHA) and makes it with `loadIncrementScript()`',
    async () => {
      expect(typeof (store as unknown as { loadIncrementScript: unknown }).loadIncrementScript).toBe('function');
      await expect(store.increment('k')).rejects.toThrow('timed out');
      expect(await store.increment('k')).toMatchObject({ totalHits: 1 });
    },
  );
});

// --- the search engine clients: src/search/elasticsearch/bounded.ts -------------------------------------

describe('the search engine clients\' connections (src/search/elasticsearch/bounded.ts)', () => {
  const HEADERS = { 'content-type': 'application/json', 'x-elastic-product': 'Elasticsearch' };
  let server: http.Server;
  let url: string;
  const trickles = new Set<NodeJS.Timeout>();

  beforeAll(async () => {
    server = http.createServer((req, res) => {
      if (req.url?.startsWith('/large')) {
        res.writeHead(200, HEADERS).end(JSON.stringify({ text: 'x'.repeat(64 * 1024) }));
        return;
      }
      // A body that never ends: a byte every 100 ms.
      res.writeHead(200, HEADERS);
      res.write('{"text": "');
      const timer = setInterval(() => res.write('x'), 100);
      trickles.add(timer);
      res.on('close', () => clearInterval(timer));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    for (const timer of trickles) clearInterval(timer);
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  // OpenSearch's client logs the errors of the answers cut off below, which it then ignores.
  beforeEach(() => jest.spyOn(console, 'log').mockImplementation(() => undefined));
  afterEach(() => jest.restoreAllMocks());

  const elastic = (budget: AnswerBudget) => new ElasticClient({ node: url, Connection: boundedElasticConnection(UndiciConnection, budget), requestTimeout: 300, maxRetries: 0 });
  const openSearch = (budget: AnswerBudget) => new OpenSearchClient({ node: url, Connection: boundedOpenSearchConnection(OpenSearchConnection, budget), requestTimeout: 300, maxRetries: 0 });

  test('Elastic\'s UndiciConnection: requests go through its `pool`, and take a signal', async () => {
    const small = elastic(new AnswerBudget(4096, 'the engine'));
    const large = elastic(new AnswerBudget(1024 * 1024, 'the engine'));
    try {
      await assume(
        'src/search/elasticsearch/bounded.ts replaces UndiciConnection\'s `pool` (an undici Dispatcher) by pool.compose(...) to count an answer\'s ' +
          'bytes: the connection sends every request through this.pool',
        async () => {
          await expect(small.transport.request({ method: 'GET', path: '/large' })).rejects.toThrow();
          expect(await large.transport.request({ method: 'GET', path: '/large' })).toMatchObject({ text: expect.any(String) });
        },
      );
      await assume(
        'src/search/elasticsearch/bounded.ts bounds a whole exchange with the `signal` it adds to UndiciConnection.request(params, options), where ' +
          'options.timeout (or the connection\'s `timeout`) is the request\'s timeout: an answer that never ends is aborted',
        () => within(6000, 'aborting an endless answer', expect(large.transport.request({ method: 'GET', path: '/endless' })).rejects.toThrow()),
      );
    } finally {
      await Promise.all([small.close(), large.close()]);
    }
  });

  test('OpenSearch\'s Connection: request(params, callback) calls back with the answer before its body flows, params carry the timeout', async () => {
    const small = openSearch(new AnswerBudget(4096, 'the engine'));
    const large = openSearch(new AnswerBudget(1024 * 1024, 'the engine'));
    try {
      await assume(
        'src/search/elasticsearch/bounded.ts overrides OpenSearch\'s Connection.request(params, callback): the callback gets the IncomingMessage ' +
          'before its body is read (a \'data\' listener added then counts every chunk), and params.timeout is the request\'s timeout',
        async () => {
          await expect(small.transport.request({ method: 'GET', path: '/large' })).rejects.toThrow();
          expect((await large.transport.request({ method: 'GET', path: '/large' })).body).toMatchObject({ text: expect.any(String) });
          await within(5000, 'cutting off an endless answer', expect(large.transport.request({ method: 'GET', path: '/endless' })).rejects.toThrow());
        },
      );
    } finally {
      await Promise.all([small.close(), large.close()]);
    }
  });
});

// --- Node's http server: src/http/server.ts -------------------------------------------------------------

describe('Node\'s http server (src/http/server.ts)', () => {
  test('socket._httpMessage is the response being written', async () => {
    let pending: unknown;
    const server = http.createServer((req, res) => {
      pending = (req.socket as unknown as { _httpMessage: unknown })._httpMessage === res;
      res.end('ok');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`).then((r) => r.text());
      await assume(
        'src/http/server.ts (answerClientError) reads Node\'s private socket._httpMessage, the ServerResponse in progress on the socket, to leave a ' +
          'connection whose response has started alone',
        () => expect(pending).toBe(true),
      );
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  test('connectionsCheckingInterval set right after listen() is the sweep of the header timeout', async () => {
    const server = http.createServer((_req, res) => res.end('ok'));
    server.listen(0, '127.0.0.1');
    configureServer(server, { http: { headersTimeoutMs: 300, requestTimeoutMs: 600, keepAliveTimeoutMs: 5000, idleTimeoutMs: 10_000 } } as unknown as Pick<Config, 'http'>);
    await new Promise((resolve) => server.once('listening', resolve));
    const socket = net.connect((server.address() as AddressInfo).port, '127.0.0.1');
    try {
      const answer = new Promise<string>((resolve) => {
        let text = '';
        socket.on('data', (chunk) => (text += chunk));
        socket.on('close', () => resolve(text));
      });
      socket.write('GET / HTTP/1.1\r\nHost: x\r\n'); // headers never completed
      await assume(
        'src/http/server.ts (configureServer) sets server.connectionsCheckingInterval after listen(): Node reads it when the server emits \'listening\' ' +
          'and sweeps connections for headersTimeout at that interval (by default every 30 s)',
        async () => expect(await within(5000, 'a 408 for headers never completed', answer)).toMatch(/^HTTP\/1\.1 408 /),
      );
    } finally {
      socket.destroy();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

// --- luxon: src/modules/store-locator/store-locator.hours.ts --------------------------------------------

test('luxon asks a custom zone for its offsets (src/modules/store-locator/store-locator.hours.ts)', async () => {
  class CountingZone extends Zone {
    calls = 0;

    constructor(private readonly iana: IANAZone) {
      super();
    }

    get type(): string {
      return this.iana.type;
    }

    get name(): string {
      return this.iana.name;
    }

    get isUniversal(): boolean {
      return this.iana.isUniversal;
    }

    get isValid(): boolean {
      return this.iana.isValid;
    }

    offsetName(ts: number, opts: Parameters<Zone['offsetName']>[1]): string | null {
      return this.iana.offsetName(ts, opts);
    }

    formatOffset(ts: number, format: Parameters<Zone['formatOffset']>[1]): string {
      return this.iana.formatOffset(ts, format);
    }

    offset(ts: number): number {
      this.calls++;
      return this.iana.offset(ts);
    }

    equals(other: Zone): boolean {
      return this.iana.equals(other);
    }
  }
  const zone = new CountingZone(IANAZone.create('America/Toronto'));
  const wall = { year: 2026, month: 3, day: 7, hour: 9, minute: 30 };
  const ours = DateTime.fromObject(wall, { zone });
  const later = DateTime.fromMillis(ours.toMillis() + 86_400_000, { zone });
  await assume(
    'src/modules/store-locator/store-locator.hours.ts (RememberingZone) remembers offsets in a luxon Zone subclass that calls itself "iana": luxon\'s ' +
      'DateTime asks such a zone\'s offset(ts) for wall-clock conversions instead of reading Intl by its name',
    () => {
      expect(zone.calls).toBeGreaterThan(0);
      expect(ours.toMillis()).toBe(DateTime.fromObject(wall, { zone: 'America/Toronto' }).toMillis());
      expect(later.hour).toBe(10); // the day after the switch to daylight saving time
    },
  );
});
