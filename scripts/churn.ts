/**
 * `npm run churn`: hostile-but-valid traffic against the production build at its default heap
 * (`npm run start:prod`, LEADNET_HEAP_MB unset: 192 MB), for a bounded time. It sends, with a sales
 * associate's key (any key may):
 * - CHURN_DOCUMENTS (2,000) distinct GraphQL documents near the limits (about 17 KB and 2,900 tokens each,
 *   inside every bound), each twice: the second run is the one that would compile and keep it; every
 *   third one as an automatic persisted query (its text kept by hash);
 * - the 495-field document (`{ leads(page: 1) ... leads(page: 495) }`), 16 at once, now and then;
 * - lead creates whose address has a city and no postal code (the offline geocoder's city lookup);
 * - every list route of /v1 with random parameters, valid and not, and store locator searches;
 * while it reads /healthz every 50 ms and the heap from /metrics every second. It passes when the process
 * never died, no answer was a 5xx, the heap stayed under 90% of the heap limit, /healthz's p99 stayed
 * under 100 ms and every cache held no more than its budget at the end. Uses the existing dist/ (`npm run build` first).
 */
import { createHash } from 'node:crypto';
import { Worker } from 'node:worker_threads';
import { seedDemo, startProduction, type ProductionServer } from './prod-server';

const DOCUMENTS = Number(process.env.CHURN_DOCUMENTS ?? 2000);
/** Requests in flight at once (each document's two runs go one after the other). */
const CONCURRENCY = Number(process.env.CHURN_CONCURRENCY ?? 4);
const MAX_SECONDS = Number(process.env.CHURN_MAX_SECONDS ?? 900);
const HEALTH_P99_MS = 100;
const HEAP_SHARE = 0.9;

/** Reads /healthz every 50 ms and posts each read's latency, until it is sent 'stop'. */
const HEALTH_PROBER = `
const { parentPort, workerData } = require('node:worker_threads');
let stopping = false;
parentPort.on('message', () => (stopping = true));
(async () => {
  while (!stopping) {
    const t = performance.now();
    const ok = await fetch(workerData.url).then((r) => r.arrayBuffer().then(() => r.ok), () => false);
    parentPort.postMessage({ latency: performance.now() - t, ok });
    await new Promise((r) => setTimeout(r, 50));
  }
  parentPort.postMessage('stopped');
  parentPort.close();
})();
`;

const say = (line: string) => console.log(`[churn] ${line}`);

/** The selections of a lead, every scalar and association: what a dashboard's widest page asks. */
const LEAD_FIELDS = [
  'id name status createdAt updatedAt ownerId ownerType sourceId sourceType assigneeId createdById',
  'emails { id email createdAt updatedAt }',
  'phoneNumbers { id phoneNumber countryCode formatted createdAt updatedAt }',
  'location { id addressName streetLineOne streetLineTwo city province postalCode country latitude longitude createdAt updatedAt }',
  'assignee { id name type companyRetailerId retailerLocationId }',
  'leadActivities { id type leadId data sourceId sourceType crmId crmProvider crmDataCache createdAt updatedAt }',
].join(' ');

/** A distinct document near the limits: aliased one-lead pages of every field until about 17 KB. */
export function nearLimitDocument(n: number): string {
  const parts: string[] = [];
  let length = 0;
  for (let j = 0; ; j++) {
    const part = `a${j}: leads(page: ${((n + j) % 7) + 1}, perPage: 1) { meta { total page } nodes { ${LEAD_FIELDS} } }`;
    if (length + part.length > 16_900) break;
    parts.push(part);
    length += part.length + 1;
  }
  return `query Churn${n} { ${parts.join(' ')} }`;
}

const WIDE_DOCUMENT = `{ ${Array.from({ length: 495 }, (_, i) => `leads(page: ${i + 1})`).join(' ')} }`;

const CITIES = [
  ['Lyon', 'FR'], ['Portland', 'US'], ['Springfield', 'US'], ['München', 'DE'], ['São Paulo', 'BR'], ['Kraków', 'PL'],
  ['Montréal', 'CA'], ['Zürich', 'CH'], ['Sevilla', 'ES'], ['Göteborg', 'SE'], ['Nowhere Town', 'US'], ['Ōsaka', 'JP'],
];

const LISTS = ['leads', 'lead_activities', 'company_retailers', 'company_retailer_locations', 'products'];

/** Random query parameters for a list: valid options, odd shapes and plain junk. */
function randomListQuery(random: () => number): string {
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(random() * xs.length)];
  const params = [
    () => `q=${encodeURIComponent(pick(['bike', 'rivera', '*', 'zz', 'é', '%', '']))}`,
    () => `opts[page]=${pick(['1', '2', '0', '-1', 'x', '1.5', '99999'])}`,
    () => `opts[per_page]=${pick(['1', '50', '500', '501', '0', 'y'])}`,
    () => `opts[order][${pick(['created_at', 'name', 'nope'])}]=${pick(['asc', 'desc', 'up'])}`,
    () => `opts[where][${pick(['status', 'name', 'id', 'nope'])}]${pick(['', '[]', '[not]', '[gt]', '[like]', '[bogus]'])}=${pick(['New', '1', 'a%', ''])}`,
    () => `opts[aggs][]=${pick(['status', 'city', 'nope'])}`,
    () => `include=${pick(['*', '', 'emails', 'lead_activities,assignee', 'nope'])}`,
    () => pick(['include[a]=b', 'include[]=x&include[]=y', 'opts[__proto__][x]=1', 'opts[where][_or][0][status]=New', 'q[x]=1', 'opts=1']),
  ];
  return Array.from({ length: 1 + Math.floor(random() * 4) }, () => pick(params)()).join('&');
}

/** A small deterministic generator: the run can be repeated. */
function generator(seed: number): () => number {
  let s = seed >>> 0;
  return () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32);
}

interface Tally {
  requests: number;
  byStatus: Map<number, number>;
  fivexx: string[];
  failures: string[];
}

async function main(): Promise<number> {
  const started = Date.now();
  const deadline = started + MAX_SECONDS * 1000;
  let server: ProductionServer | undefined;
  const tally: Tally = { requests: 0, byStatus: new Map(), fivexx: [], failures: [] };
  try {
    // The default heap: whatever the caller's environment says, the start's own default applies. The rate
    // limits are off: what is measured is what the traffic that passes them costs (the many keys and
    // addresses of a real attack would pass them too).
    const unlimited = { RATE_LIMIT_API: '0', RATE_LIMIT_API_PER_IP: '0', RATE_LIMIT_STORE_LOCATOR: '0' };
    server = await startProduction('churn', say, { LEADNET_HEAP_MB: '', GEOCODER: 'offline', LOG_LEVEL: 'warn', ...unlimited });
    const up = server;
    const seed = await seedDemo(up);
    const key = seed.users.find((u) => u.role === 'company_sales_associate')!.api_key;
    const companyId = seed.company.id;

    const send = async (what: string, path: string, init: RequestInit = {}): Promise<number> => {
      const res = await fetch(`${up.url}${path}`, { ...init, headers: { 'x-api-key': key, 'content-type': 'application/json', ...init.headers } }).catch(
        (e: Error) => {
          tally.failures.push(`${what}: no answer (${e.message})`);
          return null;
        },
      );
      if (!res) return 0;
      await res.arrayBuffer();
      tally.requests++;
      tally.byStatus.set(res.status, (tally.byStatus.get(res.status) ?? 0) + 1);
      if (res.status >= 500 && tally.fivexx.length < 20) tally.fivexx.push(`${what}: ${res.status}`);
      return res.status;
    };
    const graphql = (what: string, query: string, persisted = false) => {
      const extensions = persisted ? { persistedQuery: { version: 1, sha256Hash: createHash('sha256').update(query).digest('hex') } } : undefined;
      return send(what, '/graphql', { method: 'POST', body: JSON.stringify({ query, extensions }) });
    };

    // Watchers: /healthz every 50 ms (its latency), the heap from /metrics every second.
    let watching = true;
    const health: number[] = [];
    let heapPeak = 0;
    let heapLimit = 0;
    // The prober runs on its own thread: its timings are the service's, not the traffic generator's, whose
    // event loop is busy building and reading the traffic.
    const prober = new Worker(HEALTH_PROBER, { eval: true, workerData: { url: `${up.url}/healthz` } });
    const watchHealth = new Promise<void>((resolve, reject) => {
      prober.on('message', (m: { latency: number; ok: boolean } | 'stopped') => {
        if (m === 'stopped') return resolve();
        health.push(m.latency);
        if (!m.ok) tally.failures.push('/healthz did not answer 200');
      });
      prober.on('error', reject);
    });
    const watchHeap = (async () => {
      while (watching) {
        const text = await fetch(`${up.url}/metrics`).then((r) => r.text(), () => '');
        const used = Number(/^nodejs_heap_size_used_bytes (\d+)/m.exec(text)?.[1] ?? 0);
        heapLimit = Number(/^leadnet_heap_limit_bytes (\d+)/m.exec(text)?.[1] ?? heapLimit);
        heapPeak = Math.max(heapPeak, used);
        await new Promise((r) => setTimeout(r, 1000));
      }
    })();

    const random = generator(42);
    let next = 0;
    const worker = async () => {
      while (next < DOCUMENTS && Date.now() < deadline && up.child.exitCode === null && up.child.signalCode === null) {
        const n = next++;
        const document = nearLimitDocument(n);
        await graphql(`document ${n}`, document, n % 3 === 0);
        await graphql(`document ${n} again`, document);
        if (n % 10 === 0) {
          const [city, country] = CITIES[n % CITIES.length];
          const lead = { name: `Churn ${n}`, emails: [{ email: `churn-${n}@example.com` }], location: { city, country } };
          await send('city-only lead create', '/v1/leads', { method: 'POST', body: JSON.stringify({ lead }) });
        }
        if (n % 5 === 0) {
          const list = LISTS[n % LISTS.length];
          await send(`GET /v1/${list}`, `/v1/${list}?${randomListQuery(random)}`);
          await send('store locator', `/v1/store_locator?cc_id=${companyId}&lat=45.5&lng=-122.6&radius=${(n % 50) + 1}mi&${randomListQuery(random)}`);
        }
        if (n % 250 === 0) await Promise.all(Array.from({ length: 16 }, () => graphql('the 495-field document', WIDE_DOCUMENT)));
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    watching = false;
    prober.postMessage('stop');
    await Promise.all([watchHealth, watchHeap]);
    const metrics = await fetch(`${up.url}/metrics`).then((r) => r.text(), () => '');
    const cacheValues = (metric: string) => new Map([...metrics.matchAll(new RegExp(`^${metric}\\{cache="(\\w+)"\\} (\\d+)$`, 'gm'))].map((m) => [m[1], Number(m[2])]));
    const cacheBytes = cacheValues('leadnet_cache_bytes');
    const cacheBudgets = cacheValues('leadnet_cache_budget_bytes');

    const sent = Math.min(next, DOCUMENTS);
    const died = up.child.exitCode !== null || up.child.signalCode !== null;
    const sorted = [...health].sort((a, b) => a - b);
    const p99 = sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.99))] ?? Infinity;
    const seconds = Math.round((Date.now() - started) / 1000);
    say(`${sent} distinct documents sent twice, ${tally.requests} answers in ${seconds} s: ${[...tally.byStatus].map(([s, n]) => `${n} x ${s}`).join(', ')}`);
    say(`heap peak ${(heapPeak / 2 ** 20).toFixed(1)} MB of ${(heapLimit / 2 ** 20).toFixed(0)} MB; /healthz p99 ${p99.toFixed(1)} ms over ${health.length} reads`);

    say(`caches: ${[...cacheBytes].map(([name, bytes]) => `${name} ${(bytes / 2 ** 20).toFixed(1)}/${((cacheBudgets.get(name) ?? 0) / 2 ** 20).toFixed(1)} MB`).join(', ')}`);

    const failures = [...tally.failures.slice(0, 20)];
    if (!cacheBytes.size) failures.push('/metrics gave no leadnet_cache_bytes');
    for (const [name, bytes] of cacheBytes) if (bytes > (cacheBudgets.get(name) ?? 0)) failures.push(`the ${name} cache holds ${bytes} bytes, over its budget`);
    if (died) failures.push(`the server died (${up.child.exitCode ?? up.child.signalCode}):\n${up.output().slice(-4000)}`);
    if (sent < DOCUMENTS) failures.push(`only ${sent} of ${DOCUMENTS} documents were sent within ${MAX_SECONDS} s`);
    if (tally.fivexx.length) failures.push(`5xx answers:\n${tally.fivexx.join('\n')}`);
    if (!heapLimit) failures.push('/metrics gave no leadnet_heap_limit_bytes');
    else if (heapPeak >= HEAP_SHARE * heapLimit) failures.push(`the heap reached ${heapPeak} bytes, over ${HEAP_SHARE * 100}% of ${heapLimit}`);
    if (p99 >= HEALTH_P99_MS) failures.push(`/healthz p99 was ${p99.toFixed(1)} ms (at most ${HEALTH_P99_MS})`);
    for (const f of failures) console.error(`[churn] FAILED: ${f}`);
    say(failures.length ? 'failed' : 'passed');
    return failures.length ? 1 : 0;
  } catch (e) {
    console.error(`[churn] FAILED: ${e instanceof Error ? e.message : String(e)}`);
    return 1;
  } finally {
    await server?.close();
  }
}

if (require.main === module) void main().then((code) => process.exit(code));
