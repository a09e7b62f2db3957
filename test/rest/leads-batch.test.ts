import { api, createTestApp, gql, type TestApp } from '../support/app';
import { createLead, quoteRequest, roles } from '../support/leads';
import { Lead } from '../../src/modules/lead/lead.entity';
import { LeadRepository } from '../../src/modules/lead/lead.repository';
import { invalid, validationDetail } from '../../src/errors';
import * as leadMerge from '../../src/modules/lead/lead.merge';

/** POST /v1/leads/batch (PRODUCT.md 11, docs/partners.md): many creates, each answered as its single create. */
let t: TestApp;
let r: Awaited<ReturnType<typeof roles>>;
beforeAll(async () => {
  t = await createTestApp();
  r = await roles(t.em());
});
afterAll(() => t.close());
afterEach(() => jest.restoreAllMocks());

const FORBIDDEN = { error: 'Unauthorized', status: 403 };

/** The lead object a single POST sends under `lead`. */
const item = (extra: Record<string, unknown> = {}) => quoteRequest(extra).lead;

const leadsWith = (email: string) => t.em().count(Lead, { emails: { email } });

describe('POST /v1/leads/batch', () => {
  test('mixed good and bad items: each answered in order as its single POST, the bad ones leave the good ones written', async () => {
    const good1 = item({ name: 'Batch One' });
    const good2 = item({ name: 'Batch Two', assignee_type: 'CompanyRetailerLocation', assignee_id: r.net.storeNorth.id });
    const res = await api(t, 'post', '/v1/leads/batch', {
      key: r.users.companyAdmin.key,
      body: {
        leads: [
          good1,
          item({ name: '   ' }), // blank name
          good2,
          item({ emails: [], phone_numbers: [] }), // no contact channel
          'not an object',
          item({ lead_activities: [{ type: 'LeadActivity::Nope' }] }),
          item({ assignee_type: 'CompanyRetailerLocation', assignee_id: r.other.storeNorth.id }), // another company's store
        ],
      },
    });
    expect(res.status).toBe(200);
    const results = res.body.results;
    expect(results.map((x: any) => x.status)).toEqual([201, 422, 201, 422, 422, 422, 403]);

    // Each good item's body is exactly what a single POST answers: the bare lead with its nested records.
    expect(results[0].body).toMatchObject({ name: 'Batch One', status: 'New', emails: [{ email: good1.emails[0].email }], assignee: null });
    expect(results[0].body.lead_activities).toEqual([expect.objectContaining({ type: 'LeadActivity::QuoteRequest' })]);
    expect(results[2].body).toMatchObject({ name: 'Batch Two', assignee: { id: r.net.storeNorth.id, type: 'CompanyRetailerLocation' } });
    const single = await createLead(t, r.users.companyAdmin.key, { lead: item({ name: 'Single' }) });
    expect(Object.keys(results[0].body)).toEqual(Object.keys(single));

    // Each bad item's body is the contract's envelope, as its single POST gives it.
    expect(results[1].body).toMatchObject({ status: 422, error: 'Unprocessable Entity', details: [{ field: 'name', code: 'blank' }] });
    expect(results[3].body.details).toEqual([expect.objectContaining({ field: 'base', code: 'contact_required' })]);
    expect(results[4].body.details).toEqual([expect.objectContaining({ field: 'lead', code: 'missing' })]);
    expect(results[5].body.details).toEqual([expect.objectContaining({ field: 'type', code: 'invalid' })]);
    expect(results[6].body).toEqual(FORBIDDEN);
    for (const [i, body] of [[1, item({ name: '   ' })], [6, item({ assignee_type: 'CompanyRetailerLocation', assignee_id: r.other.storeNorth.id })]] as const) {
      const alone = await api(t, 'post', '/v1/leads', { key: r.users.companyAdmin.key, body: { lead: body } });
      expect({ i, status: alone.status, body: alone.body }).toEqual({ i, status: results[i].status, body: results[i].body });
    }

    // The good ones are stored, and readable as any lead.
    for (const created of [results[0].body, results[2].body]) {
      const shown = await api(t, 'get', `/v1/leads/${created.id}`, { key: r.users.companyAdmin.key });
      expect(shown.status).toBe(200);
      expect(shown.body).toEqual(created);
    }
  });

  test('duplicates within the batch merge in order, as separate requests would; a stored duplicate is merged into first', async () => {
    const stored = await createLead(t, r.users.companyAdmin.key, quoteRequest({ name: 'Stored', emails: [{ email: 'stored.dup@example.com' }] }));
    const res = await api(t, 'post', '/v1/leads/batch', {
      key: r.users.companyAdmin.key,
      body: {
        leads: [
          item({ name: 'A', emails: [{ email: 'a.dup@example.com' }] }),
          // Same person as A by email, bringing a phone number: merges into A's new lead.
          item({ name: 'A again', emails: [{ email: 'A.Dup@Example.com' }], phone_numbers: [{ phone_number: '(503) 555-0101', country_code: 'US' }] }),
          // Shares only the phone number the previous item added: merges into A's lead too.
          item({ name: 'A by phone', emails: [], phone_numbers: [{ phone_number: '+1 503 555 0101', country_code: 'US' }] }),
          // Shares an email with the stored lead and one with A: the stored (older) lead wins.
          item({ name: 'Both', emails: [{ email: 'a.dup@example.com' }, { email: 'stored.dup@example.com' }] }),
          item({ name: 'B', emails: [{ email: 'b.dup@example.com' }] }),
        ],
      },
    });
    expect(res.status).toBe(200);
    const [a, again, byPhone, both, b] = res.body.results;
    expect([a, again, byPhone, both, b].map((x) => x.status)).toEqual([201, 201, 201, 201, 201]);
    expect(again.body.id).toBe(a.body.id);
    expect(byPhone.body.id).toBe(a.body.id);
    expect(both.body.id).toBe(stored.id);
    expect(b.body.id).not.toBe(a.body.id);

    // Each answer is the lead as that item left it: the first is the lead as created, the later ones as merged.
    expect(a.body.emails.map((e: any) => e.email)).toEqual(['a.dup@example.com']);
    expect(a.body.phone_numbers).toEqual([]);
    expect(again.body.phone_numbers.map((p: any) => p.phone_number)).toEqual(['+15035550101']);
    expect(again.body.lead_activities[0]).toMatchObject({ type: 'LeadActivity::Note', data: { merge: { phone_numbers_added: ['+15035550101'] } } });
    expect(byPhone.body.lead_activities.filter((x: any) => x.type === 'LeadActivity::Note')).toHaveLength(2);
    expect(both.body.emails.map((e: any) => e.email)).toEqual(['stored.dup@example.com', 'a.dup@example.com']);

    expect(await leadsWith('a.dup@example.com')).toBe(2); // A's lead and the stored one (which gained it)
    expect(await leadsWith('b.dup@example.com')).toBe(1);
  });

  test('when the statement writing several creates fails, they are written one by one: the failing item is its own answer', async () => {
    // As when a store named by an item is deleted between its check and the write (a foreign key refuses it).
    const insertMany = LeadRepository.prototype.insertMany;
    jest.spyOn(LeadRepository.prototype, 'insertMany').mockImplementation(function (this: LeadRepository, tx, leads) {
      if (leads.some((lead) => lead.name === 'Broken')) return Promise.reject(invalid([validationDetail('base', 'invalid', 'refers to a record that does not exist')]));
      return insertMany.call(this, tx, leads);
    });
    const insert = LeadRepository.prototype.insert;
    jest.spyOn(LeadRepository.prototype, 'insert').mockImplementation(function (this: LeadRepository, tx, lead) {
      if (lead.name === 'Broken') return Promise.reject(invalid([validationDetail('base', 'invalid', 'refers to a record that does not exist')]));
      return insert.call(this, tx, lead);
    });
    const res = await api(t, 'post', '/v1/leads/batch', {
      key: r.users.companyAdmin.key,
      body: {
        leads: [
          item({ name: 'Fine 1' }),
          item({ name: 'Broken', emails: [{ email: 'broken.slot@example.com' }] }),
          item({ name: 'Fine 2' }),
          // Shares the broken item's email: with that lead never written, it creates its own.
          item({ name: 'After', emails: [{ email: 'broken.slot@example.com' }] }),
        ],
      },
    });
    expect(res.body.results.map((x: any) => x.status)).toEqual([201, 422, 201, 201]);
    expect(res.body.results[1].body.details).toEqual([expect.objectContaining({ field: 'base', code: 'invalid' })]);
    expect(res.body.results[3].body).toMatchObject({ name: 'After', emails: [{ email: 'broken.slot@example.com' }] });
    expect(await leadsWith('broken.slot@example.com')).toBe(1);
  });

  test('merges run without a savepoint each; when one fails, the batch runs again with one each and that item alone is the failure', async () => {
    const key = r.users.companyAdmin.key;
    const stamp = Date.now();
    const [a, b, c] = await Promise.all(['a', 'b', 'c'].map((n) => createLead(t, key, quoteRequest({ emails: [{ email: `${n}.${stamp}@example.com` }] }))));
    const activities = async (id: string) => (await api(t, 'get', `/v1/leads/${id}?include=lead_activities`, { key })).body.lead_activities.length;
    const before = await activities(b.id);

    t.resetStatements();
    const merged = await api(t, 'post', '/v1/leads/batch', {
      key,
      body: { leads: [a, b, c].map((lead, i) => item({ emails: [{ email: lead.emails[0].email }], phone_numbers: [{ phone_number: `+1 503 555 01${i}0` }] })) },
    });
    expect(merged.body.results.map((x: any) => [x.status, x.body.id])).toEqual([[201, a.id], [201, b.id], [201, c.id]]);
    expect(t.statements.filter((sql) => /savepoint/i.test(sql))).toEqual([]);

    // As when a merge's write is refused half-way (a store deleted meanwhile): its own answer, the others written.
    // The batch's merges are written together (mergeMany) and fail together; run again isolated, one at a
    // time (mergeSubmission), the broken one fails alone.
    const mergeMany = leadMerge.mergeMany;
    jest.spyOn(leadMerge, 'mergeMany').mockImplementation(async (em, items, route) => {
      const added = await mergeMany(em, items, route); // their writes are made, then the failure
      if (items.some((i) => i.submission.name === 'Broken merge')) throw invalid([validationDetail('base', 'invalid', 'refers to a record that does not exist')]);
      return added;
    });
    const mergeSubmission = leadMerge.mergeSubmission;
    jest.spyOn(leadMerge, 'mergeSubmission').mockImplementation(async (em, id, submission, route) => {
      if (submission.name === 'Broken merge') {
        await mergeSubmission(em, id, submission, route); // its writes are made, then the failure
        throw invalid([validationDetail('base', 'invalid', 'refers to a record that does not exist')]);
      }
      return mergeSubmission(em, id, submission, route);
    });
    const res = await api(t, 'post', '/v1/leads/batch', {
      key,
      body: {
        leads: [
          item({ emails: [{ email: a.emails[0].email }, { email: `a2.${stamp}@example.com` }] }),
          item({ name: 'Broken merge', emails: [{ email: b.emails[0].email }, { email: `b2.${stamp}@example.com` }] }),
          item({ emails: [{ email: `new.${stamp}@example.com` }] }),
          item({ emails: [{ email: c.emails[0].email }, { email: `c2.${stamp}@example.com` }] }),
        ],
      },
    });
    expect(res.body.results.map((x: any) => x.status)).toEqual([201, 422, 201, 201]);
    expect(res.body.results[1].body.details).toEqual([expect.objectContaining({ field: 'base', code: 'invalid' })]);
    expect(res.body.results[0].body.emails.map((e: any) => e.email)).toEqual([a.emails[0].email, `a2.${stamp}@example.com`]);
    expect(res.body.results[3].body.emails.map((e: any) => e.email)).toEqual([c.emails[0].email, `c2.${stamp}@example.com`]);
    // Nothing of the failed merge: neither its email nor its note; the earlier batch's merge note only.
    expect(await leadsWith(`b2.${stamp}@example.com`)).toBe(0);
    expect(await activities(b.id)).toBe(before + 2);
    expect(await leadsWith(`new.${stamp}@example.com`)).toBe(1);
    expect(await leadsWith(`a2.${stamp}@example.com`)).toBe(1);
  });

  test("another tenant's lead sharing an email and a phone number is never merged into: the batch creates the caller's own lead", async () => {
    const stamp = Date.now();
    const shared = { emails: [{ email: `tenant.${stamp}@example.com` }], phone_numbers: [{ phone_number: '+1 503 555 0199', country_code: 'US' }] };
    const theirs = await createLead(t, r.users.otherAdmin.key, quoteRequest({ name: 'Theirs', ...shared }));
    const res = await api(t, 'post', '/v1/leads/batch', { key: r.users.companyAdmin.key, body: { leads: [item({ name: 'Ours', ...shared }), item({ name: 'Ours again', ...shared })] } });
    const [ours, again] = res.body.results;
    expect([ours.status, again.status]).toEqual([201, 201]);
    expect(ours.body.id).not.toBe(theirs.id);
    expect(again.body.id).toBe(ours.body.id); // merged into the caller's own new lead, not the other tenant's
    const stored = await api(t, 'get', `/v1/leads/${theirs.id}?include=emails,lead_activities`, { key: r.users.otherAdmin.key });
    expect(stored.body).toMatchObject({ name: 'Theirs', emails: [{ email: `tenant.${stamp}@example.com` }] });
    expect(stored.body.lead_activities).toHaveLength(theirs.lead_activities.length);
  });

  test('many items of one batch merging into one lead: one round each, each answer the lead as its item left it', async () => {
    const key = r.users.companyAdmin.key;
    const stamp = Date.now();
    const phone = { phone_number: '+1 503 555 0177', country_code: 'US' };
    const stored = await createLead(t, key, quoteRequest({ emails: [{ email: `rounds.${stamp}@example.com` }], phone_numbers: [phone] }));
    const items = Array.from({ length: 25 }, (_, i) => item({ emails: [{ email: `rounds.${stamp}.${i}@example.com` }], phone_numbers: [phone] }));
    const res = await api(t, 'post', '/v1/leads/batch', { key, body: { leads: items } });
    expect(res.body.results.map((x: any) => [x.status, x.body.id])).toEqual(items.map(() => [201, stored.id]));
    res.body.results.forEach((x: any, i: number) => {
      expect(x.body.emails).toHaveLength(i + 2); // the stored email, then one more for each item up to this one
      expect(x.body.lead_activities[0]).toMatchObject({ type: 'LeadActivity::Note', data: { merge: { emails_added: [`rounds.${stamp}.${i}@example.com`], phone_numbers_added: [] } } });
    });
    expect(await leadsWith(`rounds.${stamp}.24@example.com`)).toBe(1);
  });

  test('the statements of a batch of merges do not grow with its items', async () => {
    const key = r.users.companyAdmin.key;
    const stamp = Date.now();
    const stored: Array<Awaited<ReturnType<typeof createLead>>> = [];
    for (let i = 0; i < 15; i++) stored.push(await createLead(t, key, quoteRequest({ emails: [{ email: `count.${i}.${stamp}@example.com` }] })));
    const mergeInto = async (leads: typeof stored) => {
      t.resetStatements();
      const res = await api(t, 'post', '/v1/leads/batch', {
        key,
        body: { leads: leads.map((lead, i) => item({ emails: [{ email: lead.emails[0].email }], phone_numbers: [{ phone_number: `+1 503 555 02${String(i).padStart(2, '0')}` }] })) },
      });
      expect(res.body.results.map((x: any) => [x.status, x.body.id])).toEqual(leads.map((lead) => [201, lead.id]));
      res.body.results.forEach((x: any, i: number) => expect(x.body.lead_activities[0]).toMatchObject({ type: 'LeadActivity::Note', data: { merge: { phone_numbers_added: [`+150355502${String(i).padStart(2, '0')}`] } } }));
      return t.statements.length;
    };
    expect(await mergeInto(stored.slice(12))).toBe(await mergeInto(stored.slice(0, 12)));
  });

  test("a batch whose connection dies in the middle of its merges answers 503 and keeps none of them", async () => {
    const key = r.users.companyAdmin.key;
    const stamp = Date.now();
    const [a, b] = await Promise.all(['a', 'b'].map((n) => createLead(t, key, quoteRequest({ emails: [{ email: `crash.${n}.${stamp}@example.com` }] }))));
    const mergeMany = leadMerge.mergeMany;
    jest.spyOn(leadMerge, 'mergeMany').mockImplementation(async (em, items, route) => {
      // The merges are written in the transaction, then the server drops the connection.
      const added = await mergeMany(em, items, route);
      await em.execute('select pg_terminate_backend(pg_backend_pid())').catch(() => undefined);
      return added;
    });
    const res = await api(t, 'post', '/v1/leads/batch', {
      key,
      body: { leads: [a, b].map((lead) => item({ emails: [{ email: lead.emails[0].email }, { email: `${lead.id}.added@example.com` }] })) },
    });
    expect(res.status).toBe(503);
    expect(await leadsWith(`${a.id}.added@example.com`)).toBe(0);
    expect(await leadsWith(`${b.id}.added@example.com`)).toBe(0);
  });

  test('a batch item merges into a lead a later single POST finds as the duplicate (the same lead for either road)', async () => {
    const res = await api(t, 'post', '/v1/leads/batch', { key: r.users.companyAdmin.key, body: { leads: [item({ emails: [{ email: 'road@example.com' }] })] } });
    const again = await createLead(t, r.users.companyAdmin.key, quoteRequest({ emails: [{ email: 'road@example.com' }] }));
    expect(again.id).toBe(res.body.results[0].body.id);
  });

  test('500 items are one request; 501, an empty list or a body without the list are 422 for the whole request', async () => {
    const many = Array.from({ length: 500 }, (_, i) => item({ name: `Many ${i}`, emails: [{ email: `many.${i}.${Date.now()}@example.com` }] }));
    const ok = await api(t, 'post', '/v1/leads/batch', { key: r.users.companyAdmin.key, body: { leads: many } });
    expect(ok.status).toBe(200);
    expect(ok.body.results).toHaveLength(500);
    expect(ok.body.results.every((x: any) => x.status === 201)).toBe(true);
    expect(new Set(ok.body.results.map((x: any) => x.body.id)).size).toBe(500);
    expect(ok.body.results.map((x: any) => x.body.name)).toEqual(many.map((m) => m.name));

    const tooMany = await api(t, 'post', '/v1/leads/batch', { key: r.users.companyAdmin.key, body: { leads: [...many, item()] } });
    expect(tooMany.status).toBe(422);
    expect(tooMany.body.details).toEqual([expect.objectContaining({ field: 'leads', code: 'too_long' })]);
    expect(tooMany.body.message).toMatch(/at most 500 items/);

    for (const body of [{ leads: [] }, {}, { lead: item() }, { leads: { name: 'x' } }]) {
      const res = await api(t, 'post', '/v1/leads/batch', { key: r.users.companyAdmin.key, body });
      expect({ body, status: res.status }).toEqual({ body, status: 422 });
      expect(res.body.details[0].field).toBe('leads');
    }
    const malformed = await api(t, 'post', '/v1/leads/batch', { key: r.users.companyAdmin.key, raw: '{"leads": [' });
    expect(malformed.status).toBe(400);
  });

  test('roles: a role that may not create leads gets the request 403 (as its single create); no key is 401; every network role creates', async () => {
    const denied = await api(t, 'post', '/v1/leads/batch', { key: r.users.operator.key, body: { leads: [item()] } });
    expect(denied.status).toBe(403);
    expect(denied.body).toEqual(FORBIDDEN);
    expect((await api(t, 'post', '/v1/leads', { key: r.users.operator.key, body: quoteRequest() })).status).toBe(403);
    expect((await api(t, 'post', '/v1/leads/batch', { body: { leads: [item()] } })).status).toBe(401);

    const network = ['companyAdmin', 'territoryManager', 'retailerManager', 'locationUser', 'salesAssociate', 'retailerAdmin', 'storeManager'] as const;
    for (const role of network) {
      const res = await api(t, 'post', '/v1/leads/batch', { key: r.users[role].key, body: { leads: [item(), item()] } });
      expect({ role, status: res.status, items: res.body.results.map((x: any) => x.status) }).toEqual({ role, status: 200, items: [201, 201] });
    }
  });

  test("per item 403: a store the role may not route to, as SPEC 4.3 rule 3 answers a single create", async () => {
    // A retailer admin sees the network's stores but never routes a lead to another company's store...
    const res = await api(t, 'post', '/v1/leads/batch', {
      key: r.users.locationUser.key,
      body: {
        leads: [
          item({ assignee_type: 'CompanyRetailerLocation', assignee_id: r.net.storeNorth.id }),
          item({ assignee_type: 'CompanyRetailerLocation', assignee_id: r.net.storeSouth.id }), // not the location user's store
          item({ assignee_type: 'Store', assignee_id: r.net.storeNorth.id }),
        ],
      },
    });
    expect(res.body.results.map((x: any) => x.status)).toEqual([201, 403, 403]);
    expect(res.body.results[1].body).toEqual(FORBIDDEN);
  });

  test('GraphQL createLeads: the same batch, a failing item null with its error at its index', async () => {
    const res = await gql(
      t,
      r.users.companyAdmin.key,
      `mutation($inputs: [LeadInput!]!) { createLeads(inputs: $inputs) { id name emails { email } merge { emailsAdded } } }`,
      {
        inputs: [
          { name: 'Gql One', emails: [{ email: 'gql.batch@example.com' }] },
          { name: ' ', emails: [{ email: 'gql.blank@example.com' }] },
          { name: 'Gql Again', emails: [{ email: 'gql.batch@example.com' }, { email: 'gql.batch.2@example.com' }] },
        ],
      },
    );
    expect(res.status).toBe(200);
    const [one, blank, again] = res.body.data.createLeads;
    expect(one).toMatchObject({ name: 'Gql One', merge: null });
    expect(blank).toBeNull();
    expect(again).toMatchObject({ id: one.id, merge: { emailsAdded: ['gql.batch.2@example.com'] } });
    expect(res.body.errors).toEqual([expect.objectContaining({ path: ['createLeads', 1], extensions: expect.objectContaining({ code: 'BAD_USER_INPUT' }) })]);
  });
});
