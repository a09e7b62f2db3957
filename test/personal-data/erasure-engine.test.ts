// The erasure proof on a search engine (docs/personal-data.md "Erasure", "The search engine"): runs only
// with an engine cluster configured (SEARCH_CLUSTER / LEADNET_TEST_SEARCH_URL, test/support/search-engine.ts).
// A person's lead and activity reach the engine's indexes; after the erasure every document of every
// index of the run is read back and none of the person's strings is in them, and a list finds nothing.
import { randomBytes } from 'node:crypto';
import { api, createTestApp, gql, type TestApp } from '../support/app';
import { roles } from '../support/leads';
import { engineUnderTest } from '../support/search-engine';
import { searchEngineClient } from '../../src/search/factory';

const engine = engineUnderTest();
const NEEDLES = ['quillonbeck', 'erasure-engine', '612987655', 'thornwhistle'];

(engine ? describe : describe.skip)(`erasure on ${engine?.backend ?? 'a search engine'}`, () => {
  const prefix = `leadnet_erase_${randomBytes(4).toString('hex')}_`;
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp({ SEARCH_BACKEND: engine!.backend, SEARCH_URL: engine!.url, ELASTICSEARCH_INDEX_PREFIX: prefix, GEOCODER: 'none' });
  });
  afterAll(async () => {
    if (t) await searchEngineClient(t.config).indices.delete({ index: `${prefix}*`, ignore_unavailable: true });
    await t?.close();
  });

  /** Every document of every index of this run, as one lower-cased text. */
  async function engineDump(): Promise<string> {
    const client = searchEngineClient(t.config);
    await client.indices.refresh({ index: `${prefix}*`, ignore_unavailable: true, allow_no_indices: true });
    const res = await client.search({ index: `${prefix}*`, size: 10_000, query: { match_all: {} } });
    return JSON.stringify(res.hits.hits.map((h) => h._source)).toLowerCase();
  }

  test("after an erasure no index holds the person's strings", async () => {
    const { users } = await roles(t.em());
    const admin = users.companyAdmin.key;
    const created = await api(t, 'post', '/v1/leads', {
      key: admin,
      body: {
        lead: {
          name: 'Ottoline Quillonbeck',
          emails: [{ email: 'ottoline@erasure-engine.example' }],
          phone_numbers: [{ phone_number: '+33 6 12 98 76 55', country_code: 'FR' }],
          location: { street_line_one: '9 Thornwhistle Lane', city: 'Lyon', country: 'FR' },
          lead_activities: [{ type: 'LeadActivity::Note', data: { notes: 'Quillonbeck wants a call' } }],
        },
      },
    });
    expect(created.status).toBe(201);
    const listed = await api(t, 'get', '/v1/leads?q=Quillonbeck', { key: admin });
    expect(listed.body.leads.map((l: { id: string }) => l.id)).toEqual([created.body.id]);
    expect(await engineDump()).toContain('quillonbeck');

    const erased = await gql(t, admin, 'mutation { erasePersonalData(selector: {email: "ottoline@erasure-engine.example"}) { status leadCount } }');
    expect(erased.body.data.erasePersonalData).toEqual({ status: 'DONE', leadCount: 1 });
    // What the mutation waited for is searchable; the background indexer writes the rest (polled below).
    const after = await api(t, 'get', '/v1/leads?q=Quillonbeck', { key: admin });
    expect(after.body.leads).toEqual([]);
    let dump = await engineDump();
    for (let i = 0; i < 20 && NEEDLES.some((n) => dump.includes(n)); i++) {
      await new Promise((r) => setTimeout(r, 500));
      dump = await engineDump();
    }
    for (const needle of NEEDLES) expect({ needle, found: dump.includes(needle) }).toEqual({ needle, found: false });
  }, 120_000);
});
