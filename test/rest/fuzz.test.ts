import fc from 'fast-check';
import request from 'supertest';
import { createTestApp, type TestApp } from '../support/app';
import { world } from '../support/network';
import { createLead, quoteRequest } from '../support/leads';
import { assertMatchesOpenApi } from '../support/openapi';
import { FuzzGenerator, type FuzzRequest } from '../support/fuzz';
import { openApiDocument } from '../../src/rest/openapi';
import * as f from '../support/factories';
import { openApiLists } from '../../src/modules';
import { engineUnderTest } from '../support/search-engine';
import { searchEngineClient } from '../../src/search/factory';

/**
 * Property: whatever the request (generated from schema/openapi.json, hostile values mixed in, keys of
 * every role), the answer is never a 5xx, and every 4xx has the body the contract documents. A small
 * budget runs here; `npm run fuzz` runs 10,000+ against a running service.
 */
// With SEARCH_URL (CI's engine suites), the same property with the lists on the search engine.
const engine = engineUnderTest();
const prefix = `leadnet_rest_fuzz_${process.pid}_`;

let t: TestApp;
let generator: FuzzGenerator;
beforeAll(async () => {
  t = await createTestApp(engine ? { SEARCH_BACKEND: engine.backend, SEARCH_URL: engine.url, ELASTICSEARCH_INDEX_PREFIX: prefix } : {});
  const w = await world(t.em());
  const leads = [];
  for (const role of ['company_admin', 'company_location_user', 'retailer_admin'] as const) {
    leads.push(await createLead(t, w.keys[role], quoteRequest({ assignee_id: role === 'retailer_admin' ? undefined : w.crlIn.id })));
  }
  const product = await f.product(t.em(), w.A);
  const ids = [w.crA, w.crA2, w.crB, w.crlIn, w.crlSouth, w.crlB, product, ...leads].map((x) => x.id);
  ids.push(...leads.map((l: any) => l.lead_activities?.[0]?.id).filter(Boolean));
  generator = new FuzzGenerator(openApiDocument(), { keys: Object.values(w.keys), ids, companyIds: [w.A.id, w.B.id] });
});
afterAll(async () => {
  if (t && engine) await searchEngineClient(t.config).indices.delete({ index: `${prefix}*`, ignore_unavailable: true });
  await t?.close();
});

async function send(app: TestApp['app'], req: FuzzRequest) {
  let r = request(app)[req.method](req.url);
  for (const [k, v] of Object.entries(req.headers)) r = r.set(k, v);
  return req.body === undefined ? r : r.send(req.body);
}

test('no generated request gets a 5xx; every 4xx has the contract body', async () => {
  const runs = Number(process.env.FUZZ_RUNS ?? 300);
  await fc.assert(
    fc.asyncProperty(generator.request(), async (req) => {
      const res = await send(t.app, req);
      if (res.status >= 500) throw new Error(`${res.status} for ${req.method.toUpperCase()} ${req.url.slice(0, 300)}\nbody: ${String(req.body).slice(0, 300)}\nanswer: ${JSON.stringify(res.body)}`);
      if (res.status >= 400) assertMatchesOpenApi(req.method, req.url, res.status, res.body);
    }),
    { numRuns: runs, endOnFailure: true },
  );
}, 180_000);
