import { Writable } from 'node:stream';
import pino from 'pino';
import request from 'supertest';
import { createTestApp, gql, type TestApp } from '../support/app';
import { quoteRequest, roles } from '../support/leads';
import { logger, logSerializers } from '../../src/logger';
import { redact, safeError } from '../../src/safe-error';

/** Issue 9 item 9: a 500 stays a 500 for a real fault, and its log line carries no personal data. */
let t: TestApp;
let r: Awaited<ReturnType<typeof roles>>;
beforeAll(async () => {
  t = await createTestApp();
  r = await roles(t.em());
  // A real fault: the database refuses what the service believes valid.
  await t.em().getConnection().execute(`alter table leads add constraint test_fault check (name <> 'Faulty Person')`);
});
afterAll(() => t.close());

/** Log lines as the process logger writes them (same serializers), for the calls made during `fn`. */
async function logged(fn: () => Promise<unknown>): Promise<string> {
  const lines: string[] = [];
  const sink = pino({ base: undefined, serializers: logSerializers }, new Writable({ write: (chunk, _e, cb) => (lines.push(String(chunk)), cb()) }));
  const spy = jest.spyOn(logger, 'error').mockImplementation(((...args: any[]) => (sink.error as any)(...args)) as any);
  try {
    await fn();
  } finally {
    spy.mockRestore();
  }
  return lines.join('');
}

const PERSONAL = /faulty\.person@example\.com|Faulty Person|faulty person|503.?555.?0199|insert into|values \(|Failing row/i;

test('REST: a database fault is a 500 in the contract style; the log has the class and code, no SQL or values', async () => {
  let res: any;
  const log = await logged(async () => {
    // Not through api(): a 500 is not part of the contract the OpenAPI document describes.
    res = await request(t.app)
      .post('/v1/leads')
      .set('X-Api-Key', r.users.companyAdmin.key)
      .send(quoteRequest({ name: 'Faulty Person', emails: [{ email: 'faulty.person@example.com' }], phone_numbers: [{ phone_number: '503-555-0199' }] }));
  });
  expect(res.status).toBe(500);
  expect(res.body).toEqual({ status: 500, error: 'Internal Server Error', message: 'Something went wrong' });
  expect(log).not.toMatch(PERSONAL);
  const line = JSON.parse(log.trim().split('\n')[0]);
  expect(line.err).toMatchObject({ type: 'CheckConstraintViolationException', code: '23514', constraint: 'test_fault', table: 'leads' });
  expect(line.err.message).toMatch(/violates check constraint/);
  expect(line.err.stack).toMatch(/\n\s+at /);
});

test('GraphQL: the same fault is INTERNAL_SERVER_ERROR, logged the same way', async () => {
  let res: any;
  const log = await logged(async () => {
    res = await gql(t, r.users.companyAdmin.key, 'mutation($input: LeadInput!) { createLead(input: $input) { id } }', {
      input: { name: 'Faulty Person', emails: [{ email: 'faulty.person@example.com' }] },
    });
  });
  expect(res.body.errors[0]).toMatchObject({ message: 'Internal server error', extensions: { code: 'INTERNAL_SERVER_ERROR' } });
  expect(log).toMatch(/CheckConstraintViolationException/);
  expect(log).not.toMatch(PERSONAL);
});

describe('safeError', () => {
  test('keeps the database sentence, drops the statement and quoted values', () => {
    const e = Object.assign(new Error(`insert into "emails" ("email") values ('ada@example.com') - duplicate key value violates unique constraint "emails_email_key"`), {
      code: '23505',
      detail: 'Key (email)=(ada@example.com) already exists.',
      constraint: 'emails_email_key',
    });
    const s = safeError(e);
    expect(s).toMatchObject({ type: 'Error', code: '23505', constraint: 'emails_email_key', message: 'duplicate key value violates unique constraint "?"' });
    expect(JSON.stringify(s)).not.toMatch(/ada@example\.com|insert into/);
  });

  test('redacts e-mails, phone numbers and quoted text in any message; keeps causes', () => {
    expect(redact(`no route for ada@example.com at +1 (503) 555-0100 named 'Ada'`)).toBe(`no route for ?@? at ? named '?'`);
    const s = safeError(new Error('outer', { cause: new TypeError(`bad "x@y.z"`) }));
    expect(s.cause).toMatchObject({ type: 'TypeError', message: 'bad "?"' });
  });
});
