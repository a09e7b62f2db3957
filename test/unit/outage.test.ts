import { GraphQLError } from 'graphql';
import { ConnectionException, DriverException, TableNotFoundException, UniqueConstraintViolationException, DeadlockException } from '@mikro-orm/core';
import { isDatabaseUnavailable, isStatementTimeout, isTransactionConflict } from '../../src/db/outage';
import { httpErrorFromGraphQL, httpErrorFromUnknown } from '../../src/http/envelopes';
import { requestIdOf } from '../../src/observability/request-id';
import { defaultPoolSize, parseConfig } from '../../src/config';

const withCode = (message: string, code: string) => Object.assign(new Error(message), { code });

describe('isDatabaseUnavailable', () => {
  test.each([
    ['connection refused', withCode('connect ECONNREFUSED 127.0.0.1:5432', 'ECONNREFUSED')],
    ['connection reset', withCode('read ECONNRESET', 'ECONNRESET')],
    ['server shutting down (57P01)', withCode('terminating connection due to administrator command', '57P01')],
    ['server starting up (57P03)', withCode('the database system is starting up', '57P03')],
    ['connection failure (08006)', withCode('connection failure', '08006')],
    ['too many connections (53300)', withCode('sorry, too many clients already', '53300')],
    ['statement timeout (57014)', withCode('canceling statement due to statement timeout', '57014')],
    ['lost connection', new Error('Connection terminated unexpectedly')],
    ['lost connection behind the SQL knex prefixes', new Error('select 1 - Connection terminated unexpectedly')],
    ['connect timeout', new Error('timeout expired')],
    ['client read timeout', new Error('Query read timeout')],
    ['pool acquire timeout', Object.assign(new Error('Knex: Timeout acquiring a connection. The pool is probably full.'), { name: 'KnexTimeoutError' })],
    ['MikroORM connection exception', new ConnectionException(withCode('x', '08001'))],
    ['inside a GraphQL error', new GraphQLError('wrapped', { originalError: withCode('connect ECONNREFUSED', 'ECONNREFUSED') })],
    ['as a cause', new Error('outer', { cause: new Error('Connection terminated') })],
    ['every address refused', new AggregateError([withCode('a', 'ECONNREFUSED'), withCode('b', 'ECONNREFUSED')])],
    // Issue 40: knex hands out a transaction whose BEGIN ran out of time; its first statement finds it closed.
    ['a transaction the driver closed', new DriverException(new Error('Transaction query already complete, run with DEBUG=knex:tx for more info'))],
    ['a closed transaction behind the SQL knex prefixes', new Error("select set_config('leadnet.actor_id', '', true) - Transaction query already complete, run with DEBUG=knex:tx for more info")],
  ])('%s: unavailable', (_what, err) => {
    expect(isDatabaseUnavailable(err)).toBe(true);
  });

  test.each([
    ['a missing table', new TableNotFoundException(withCode('relation "x" does not exist', '42P01'))],
    ['a unique violation', new UniqueConstraintViolationException(withCode('duplicate key', '23505'))],
    ['a deadlock', new DeadlockException(withCode('deadlock detected', '40P01'))],
    ['a cancel that is not a timeout', withCode('canceling statement due to user request', '57014')],
    ['a plain bug', new TypeError("Cannot read properties of undefined (reading 'id')")],
    ['a GraphQL error without cause', new GraphQLError('bad')],
    ['nothing', undefined],
    ['a string', 'ECONNREFUSED'],
  ])('%s: not an outage', (_what, err) => {
    expect(isDatabaseUnavailable(err)).toBe(false);
  });
});

describe('isTransactionConflict', () => {
  test.each([
    ['a deadlock (40P01)', new DeadlockException(withCode('deadlock detected', '40P01'))],
    ['a serialization failure (40001)', new DeadlockException(withCode('could not serialize access due to concurrent update', '40001'))],
    ['inside a GraphQL error', new GraphQLError('wrapped', { originalError: withCode('deadlock detected', '40P01') })],
    ['as a cause', new Error('outer', { cause: withCode('x', '40001') })],
  ])('%s: a conflict', (_what, err) => {
    expect(isTransactionConflict(err)).toBe(true);
  });

  test.each([
    ['a unique violation', new UniqueConstraintViolationException(withCode('duplicate key', '23505'))],
    ['a statement timeout', withCode('canceling statement due to statement timeout', '57014')],
    ['a lost connection', new Error('Connection terminated unexpectedly')],
    ['nothing', undefined],
  ])('%s: not a conflict', (_what, err) => {
    expect(isTransactionConflict(err)).toBe(false);
  });
});

describe('isStatementTimeout', () => {
  const timeout = () => withCode('canceling statement due to statement timeout', '57014');
  test.each([
    ['the driver error', timeout()],
    ['behind the SQL knex prefixes', withCode('select 1 - canceling statement due to statement timeout', '57014')],
    ['inside a GraphQL error', new GraphQLError('wrapped', { originalError: timeout() })],
    ['as a cause', new Error('outer', { cause: timeout() })],
  ])('%s: a timeout', (_what, err) => {
    expect(isStatementTimeout(err)).toBe(true);
  });

  test.each([
    ['a cancel that is not a timeout', withCode('canceling statement due to user request', '57014')],
    ['a lost connection', new Error('Connection terminated unexpectedly')],
    ['the client read timeout (a server that stopped answering)', new Error('Query read timeout')],
    ['nothing', undefined],
  ])('%s: not a timeout', (_what, err) => {
    expect(isStatementTimeout(err)).toBe(false);
  });
});

describe('HTTP mapping', () => {
  test('an outage is a 503 with Retry-After in the generic envelope; anything else a 500', () => {
    expect(httpErrorFromUnknown(withCode('connect ECONNREFUSED', 'ECONNREFUSED'))).toEqual({
      status: 503,
      body: { status: 503, error: 'Service Unavailable', message: expect.any(String) },
      headers: { 'Retry-After': '5' },
    });
    expect(httpErrorFromUnknown(new TypeError('bug')).status).toBe(500);
    expect(httpErrorFromGraphQL(new GraphQLError('x', { originalError: new Error('Query read timeout') })).status).toBe(503);
    expect(httpErrorFromGraphQL(new GraphQLError('x', { originalError: new TypeError('bug') })).status).toBe(500);
  });

  test('a statement on a transaction the driver closed is a 503 with Retry-After, not a 500', () => {
    const closed = new DriverException(new Error('Transaction query already complete, run with DEBUG=knex:tx for more info'));
    expect(httpErrorFromUnknown(closed)).toEqual({
      status: 503,
      body: { status: 503, error: 'Service Unavailable', message: expect.stringMatching(/database unreachable/) },
      headers: { 'Retry-After': '5' },
    });
    expect(httpErrorFromGraphQL(new GraphQLError('x', { originalError: closed })).status).toBe(503);
  });

  test('a statement cancelled at its bound says so; an unreachable database says that', () => {
    const timedOut = httpErrorFromUnknown(withCode('canceling statement due to statement timeout', '57014'));
    expect(timedOut.status).toBe(503);
    expect(timedOut.body.message).toMatch(/did not finish within its time bound.*narrow its filters/);
    expect(httpErrorFromUnknown(withCode('connect ECONNREFUSED', 'ECONNREFUSED')).body.message).toMatch(/database unreachable/);
  });
});

describe('requestIdOf', () => {
  test('keeps a sane id and replaces anything else', () => {
    expect(requestIdOf('abc-123_X.y:z/+=@')).toBe('abc-123_X.y:z/+=@');
    expect(requestIdOf('a'.repeat(128))).toBe('a'.repeat(128));
    for (const bad of [undefined, '', 'a'.repeat(129), 'a b', 'a\nb', '<script>', 'ü']) expect(requestIdOf(bad)).not.toBe(bad);
  });
});

describe('operations configuration', () => {
  test('defaults and bounds', () => {
    const c = parseConfig({ DATABASE_URL: 'postgres://db.example/leadnet' });
    expect(c.database).toEqual({ poolSize: 10, statementTimeoutMs: 5000, acquireTimeoutMs: 2000, preparedStatements: 200 });
    expect(parseConfig({ DATABASE_URL: 'postgres://db.example/leadnet', DB_POOL_SIZE: '3' }).database.poolSize).toBe(3);
    expect(parseConfig({ DB_POOL_SIZE: '12' }).database.poolSize).toBe(12);
    expect(c.metricsToken).toBeUndefined();
    expect(c.workerLockRetryMs).toBe(2000);
    expect(c.logFormat).toBe('auto');
    expect(() => parseConfig({ DB_POOL_SIZE: '0' })).toThrow(/DB_POOL_SIZE/);
    expect(() => parseConfig({ DB_STATEMENT_TIMEOUT_MS: 'soon' })).toThrow(/DB_STATEMENT_TIMEOUT_MS/);
    expect(() => parseConfig({ METRICS_TOKEN: 'short' })).toThrow(/METRICS_TOKEN/);
    expect(() => parseConfig({ LOG_FORMAT: 'xml' })).toThrow(/LOG_FORMAT/);
  });

  test('the embedded PostgreSQL shares the cores: its default pool is twice the cores, 4 to 10', () => {
    expect([1, 2, 3, 4, 8].map((cores) => defaultPoolSize(undefined, cores))).toEqual([4, 4, 6, 8, 10]);
    expect(defaultPoolSize('postgres://db.example/leadnet', 2)).toBe(10);
  });
});
