// The side-by-side benchmark (run by run.sh, which starts the servers). Steps:
//   1. payload check: every system's answer to each case, normalized to the REST shape, must be equal
//      (row count, ids in order, every field) before anything is timed;
//   2. SQL statements per leadnet request (count-sql.cjs counter in the leadnet process), with the texts of one;
//   3. ROUNDS rounds; in each, case by case, every system: WARMUP_S of load, then DURATION_S measured with
//      autocannon at CONNECTIONS; the order of the systems rotates from round to round; `uptime` before each round;
//      leadnet's RSS (VmRSS, VmHWM) before and after its runs, and sampled during the whole run (RSS_SAMPLE_MS);
//   4. results/results.json and results/results.md (median over rounds of rps, p50, p99; ratios; leadnet's RSS at
//      start, end and peak). Exits 3 after the report when the peak (VmHWM) is above RSS_LIMIT_MB (256; 0: no check).
import fs from 'node:fs';
import path from 'node:path';
import { execSync } from 'node:child_process';
import autocannon from 'autocannon';
import zipcodes from 'zipcodes';

const env = process.env;
const OUT = env.RESULTS_DIR ?? path.join(import.meta.dirname, 'results');
const LEADNET = env.LEADNET_URL ?? 'http://127.0.0.1:3101';
const PGL = env.PGL_URL ?? 'http://127.0.0.1:3102/graphql';
const BARE = env.BARE_URL ?? 'http://127.0.0.1:3103';
const SQLCOUNT = env.SQLCOUNT_URL ?? 'http://127.0.0.1:3111';
const LEADNET_PID = Number(env.LEADNET_PID);
// A second leadnet on a search engine (run.sh with SEARCH_BACKEND=opensearch|elasticsearch): the role cases run on both.
const ENGINE = env.ENGINE_URL ? { name: env.ENGINE_NAME ?? 'engine', url: env.ENGINE_URL, sqlcount: env.ENGINE_SQLCOUNT_URL, pid: Number(env.ENGINE_PID) } : null;
const ENGINE_ONLY = env.ENGINE_ONLY === '1';
const KEY_A = env.KEY_A;
const KEY_B = env.KEY_B;
const COMPANY_A = env.COMPANY_A;
const ROUNDS = Number(env.ROUNDS ?? 3);
const DURATION_S = Number(env.DURATION_S ?? 15);
const WARMUP_S = Number(env.WARMUP_S ?? 3);
const CONNECTIONS = Number(env.CONNECTIONS ?? 10);
const ONLY = env.CASES ? env.CASES.split(',') : null;
const DRAIN_MS = Number(env.DRAIN_MS ?? 2000);
const RSS_LIMIT_MB = Number(env.RSS_LIMIT_MB ?? 256);
const RSS_SAMPLE_MS = Number(env.RSS_SAMPLE_MS ?? 250);
const LEADNET_START = env.LEADNET_START ?? 'prod';
fs.mkdirSync(OUT, { recursive: true });

const INCLUDE = 'include=emails,phone_numbers,location,lead_activities,assignee';
const LN_GQL = `query Leads($page: Int, $perPage: Int) {
  leads(page: $page, perPage: $perPage) {
    nodes {
      id name status createdAt
      phoneNumbers { id phoneNumber countryCode formatted }
      emails { id email }
      location { id addressName streetLineOne streetLineTwo postalCode city province country latitude longitude }
      assignee { id type name companyRetailerId retailerLocationId }
      leadActivities { id type leadId data sourceType sourceId crmId crmProvider crmDataCache createdAt }
    }
    meta { total page perPage totalPages aggs }
  }
}`;
const PGL_GQL = `query Leads($company: UUID!, $first: Int!, $offset: Int!) {
  allLeads(condition: {ownerCompanyId: $company}, orderBy: [CREATED_AT_DESC, ROW_ID_ASC], first: $first, offset: $offset) {
    totalCount
    nodes {
      rowId name status createdAt
      phoneNumbersByLeadId(orderBy: [CREATED_AT_ASC, SEQ_ASC]) { nodes { rowId phoneNumber countryCode formatted } }
      emailsByLeadId(orderBy: [CREATED_AT_ASC, SEQ_ASC]) { nodes { rowId email } }
      locationByLocationId { rowId addressName streetLineOne streetLineTwo postalCode city province country latitude longitude }
      companyRetailerLocationByAssigneeId { rowId name companyRetailerId retailerLocationId retailerLocationByRetailerLocationId { name } }
      leadActivitiesByLeadId(orderBy: [CREATED_AT_DESC, SEQ_DESC]) {
        nodes { rowId type leadId data sourceType sourceId crmId crmProvider crmDataCache createdAt }
      }
    }
  }
}`;

// ---- requests of each case and system ----------------------------------------------------------------
const keyA = { 'x-api-key': KEY_A };
const json = { 'content-type': 'application/json' };
const gql = (url, query, variables, headers = {}) => ({ url, method: 'POST', headers: { ...json, ...headers }, body: JSON.stringify({ query, variables }) });

// Store locator origins: 1% of the US ZIP centroids (seeded as leadnet's bench does), cycled request by request.
function rng(seed) {
  let s = seed >>> 0;
  return () => ((s = (s * 1664525 + 1013904223) >>> 0), s / 2 ** 32);
}
const random = rng(7);
const ORIGINS = Object.values(zipcodes.codes)
  .filter((z) => z.latitude > 25 && z.latitude < 55 && z.longitude < -60)
  .filter(() => random() < 0.01)
  .map((z) => ({ lat: z.latitude, lng: z.longitude }));
const storePath = (i, radius) => {
  const o = ORIGINS[(i * 7919) % ORIGINS.length];
  return `/v1/store_locator?cc_id=${COMPANY_A}&latitude=${o.lat}&longitude=${o.lng}${radius ? `&radius=${radius}` : ''}`;
};

// Lead creates go to company B (so that company A's lists stay as they are); each has its own email and phone
// (a shared one would merge into the earlier lead, PRODUCT.md section 5). Area codes 541 and 458 are unused by the seed.
let created = 0;
function leadBody() {
  const n = created++;
  const area = ['541', '458'][Math.floor(n / 8_000_000) % 2];
  return JSON.stringify({
    lead: {
      name: `Perf Shopper ${n}`,
      source_type: 'PerfCreate',
      emails: [{ email: `perf-create-${n}@create.example.test` }],
      phone_numbers: [{ phone_number: `(${area}) ${200 + (n % 800)}-${String(Math.floor(n / 800) % 10000).padStart(4, '0')}`, country_code: 'US' }],
      location: { street_line_one: `${n} Main St`, city: 'Portland', province: 'OR', country: 'US', postal_code: '97205' },
      lead_activities: [{ type: 'LeadActivity::QuoteRequest', data: { products: [{ sku: 'CHAIR-1', name: 'Lounge chair', quantity: 2 }], notes: 'Call after 5pm' } }],
    },
  });
}

/** Leads per `lead_batch` request (`POST /v1/leads/batch` takes up to 500). */
const BATCH_SIZE = Number(env.BATCH_SIZE ?? 500);
function batchBody() {
  return JSON.stringify({ leads: Array.from({ length: BATCH_SIZE }, () => JSON.parse(leadBody()).lead) });
}

// ---- every other list, side by side with PostGraphile (company admin, retailer admin) ------------------
// Each system answers the same page (the first 50, SPEC's default order created_at desc, then id) of the same
// rows: leadnet's scope for the role, PostGraphile's `condition` on the column that scope comes down to on this
// data (checked: the totals and the ids in order must be equal before anything is timed). PostGraphile
// fetches the same relations leadnet's REST answer embeds (include=*).
const KEYS = env.KEYS ? JSON.parse(env.KEYS) : {};
const DEALER_1 = env.DEALER_1;
const PGL_LOCATION = 'rowId addressName streetLineOne streetLineTwo postalCode city province country latitude longitude';
const PGL_LEAD = `rowId name status createdAt
  phoneNumbersByLeadId(orderBy: [CREATED_AT_ASC, SEQ_ASC]) { nodes { rowId phoneNumber countryCode formatted } }
  emailsByLeadId(orderBy: [CREATED_AT_ASC, SEQ_ASC]) { nodes { rowId email } }
  locationByLocationId { ${PGL_LOCATION} }
  companyRetailerLocationByAssigneeId { rowId name companyRetailerId retailerLocationId retailerLocationByRetailerLocationId { name } }`;
const PGL_LISTS = {
  lead_activities: (cond) => `query($first: Int!, $offset: Int!${cond ? ', $v: UUID!' : ''}) {
    list: allLeadActivities(${cond ? `condition: {${cond}: $v}, ` : ''}orderBy: [CREATED_AT_DESC, ROW_ID_ASC], first: $first, offset: $offset) {
      totalCount
      nodes { rowId type leadId data sourceType sourceId crmId crmProvider crmDataCache createdAt leadByLeadId { ${PGL_LEAD} } }
    }
  }`,
  company_retailers: (cond) => `query($first: Int!, $offset: Int!${cond ? ', $v: UUID!' : ''}) {
    list: allCompanyRetailers(${cond ? `condition: {${cond}: $v}, ` : ''}orderBy: [CREATED_AT_DESC, ROW_ID_ASC], first: $first, offset: $offset) {
      totalCount
      nodes { rowId name sendingLeads receivingLeads isCc territoryId type
        companyRetailerLocationsByCompanyRetailerId { totalCount }
        retailerByRetailerId { rowId name } companyByCompanyId { rowId name } territoryByTerritoryId { rowId name }
        locationByPhysicalAddressId { ${PGL_LOCATION} } }
    }
  }`,
  company_retailer_locations: (cond) => `query($first: Int!, $offset: Int!${cond ? ', $v: UUID!' : ''}) {
    list: allCompanyRetailerLocations(${cond ? `condition: {${cond}: $v}, ` : ''}orderBy: [CREATED_AT_DESC, ROW_ID_ASC], first: $first, offset: $offset) {
      totalCount
      nodes { rowId name sendingLeads receivingLeads deliveryRadius website recordCalls maskEmails placeId timezone companyId companyRetailerId
        retailerLocationId territoryId companyStoreTypeId
        companyRetailerByCompanyRetailerId { territoryId }
        locationByPhysicalAddressId { ${PGL_LOCATION} } emailByGeneralEmailId { rowId email } phoneNumberByGeneralPhoneNumberId { rowId phoneNumber countryCode formatted }
        retailerLocationByRetailerLocationId { name locationByPhysicalAddressId { ${PGL_LOCATION} } emailByGeneralEmailId { rowId email }
          phoneNumberByGeneralPhoneNumberId { rowId phoneNumber countryCode formatted }
          hoursByRetailerLocationId { nodes { rowId day open openAtHour openAtMinute closeAtHour closeAtMinute } } }
        deliveryAreasByCompanyRetailerLocationId { nodes { rowId postalCode country } }
        hoursByCompanyRetailerLocationId { nodes { rowId day open openAtHour openAtMinute closeAtHour closeAtMinute } } }
    }
  }`,
  products: (cond) => `query($first: Int!, $offset: Int!${cond ? ', $v: UUID!' : ''}) {
    list: allProducts(${cond ? `condition: {${cond}: $v}, ` : ''}orderBy: [CREATED_AT_DESC, ROW_ID_ASC], first: $first, offset: $offset) {
      totalCount
      nodes { rowId sku name category url collectionId externalId companyId }
    }
  }`,
};
function listCases() {
  if (!KEYS.company_admin || !KEYS.retailer_admin) return [];
  const out = [];
  const who = [
    ['admin', 'company admin', KEYS.company_admin, { lead_activities: ['ownerCompanyId', COMPANY_A], company_retailers: ['companyId', COMPANY_A], company_retailer_locations: ['companyId', COMPANY_A], products: ['companyId', COMPANY_A] }],
    ['retailer', 'retailer admin of dealer 1', KEYS.retailer_admin, { lead_activities: ['assigneeRetailerId', DEALER_1], company_retailers: ['retailerId', DEALER_1], company_retailer_locations: ['retailerId', DEALER_1], products: [null, null] }],
  ];
  for (const list of Object.keys(PGL_LISTS)) {
    for (const [tag, title, key, conds] of who) {
      const [cond, v] = conds[list];
      out.push({
        id: `${list}_${tag}`,
        list,
        title: `${list}, page 1 (50/page, include=*), ${title}${cond ? `; PostGraphile condition ${cond}` : '; PostGraphile unfiltered'}`,
        systems: {
          'leadnet REST': { url: `${LEADNET}/v1/${list}?opts[per_page]=50`, headers: { 'x-api-key': key } },
          PostGraphile: gql(PGL, PGL_LISTS[list](cond), { first: 50, offset: 0, ...(cond ? { v } : {}) }),
        },
      });
    }
  }
  return out;
}

// ---- the lead list of every role (leadnet only): default, q, where + aggs, a 20% filter, page 50 -------
const LEAD_CASES = {
  leads_default: ['the default list (include=*, 50/page)', ''],
  leads_q: ['q: a last name (1 lead in 20)', 'q=tremblay'],
  leads_where_aggs: ['where status Won and country CA, aggs status and city', 'opts[where][status]=Won&opts[where][country]=CA&opts[aggs][]=status&opts[aggs][]=city'],
  leads_filter20: ['where created_at in 60 of the 300 days (20% of the leads)', 'opts[where][created_at][gte]=2026-03-02T00:00:00Z&opts[where][created_at][lt]=2026-05-01T00:00:00Z'],
  leads_page50: ['page 50 (offset 2,450)', 'opts[page]=50'],
  // Pages of the same length at 100,000 and 1,000,000 leads for every role, where the cases above are not
  // (a location user's default page holds 8 leads at 100,000 and 50 at 1,000,000; the retailer admin's page 50
  // is empty at 100,000): the first lead of each list, and the retailer admin's last full page at 100,000.
  // Run only when CASES names them.
  leads_first: ['the first lead (per_page 1)', 'opts[per_page]=1', { named: true }],
  leads_page39: ['page 39 (offset 1,900)', 'opts[page]=39', { named: true }],
};
const ROLE_NAMES = ['company_admin', 'company_territory_manager', 'company_retailer_manager', 'company_location_user', 'company_sales_associate', 'retailer_admin', 'retailer_store_manager'];
/** The system name of a role on the engine's leadnet, next to `leadnet REST <role>` on PostgreSQL. */
const engineSystem = (role) => `leadnet REST (${ENGINE.name}) ${role}`;
function roleCases() {
  if (!KEYS.company_admin) return [];
  return Object.entries(LEAD_CASES).map(([id, [title, query, { named = false } = {}]]) => ({
    id,
    named,
    title: `Leads, ${title}, every role${ENGINE ? `, on PostgreSQL and on ${ENGINE.name}` : ''}`,
    roles: true,
    systems: Object.fromEntries(
      ROLE_NAMES.filter((r) => KEYS[r]).flatMap((r) => [
        ...(ENGINE_ONLY ? [] : [[`leadnet REST ${r}`, { url: `${LEADNET}/v1/leads${query ? `?${query}` : ''}`, headers: { 'x-api-key': KEYS[r] } }]]),
        ...(ENGINE ? [[engineSystem(r), { url: `${ENGINE.url}/v1/leads${query ? `?${query}` : ''}`, headers: { 'x-api-key': KEYS[r] }, sqlcount: ENGINE.sqlcount, pid: ENGINE.pid, role: r }]] : []),
      ]),
    ),
  }));
}

const CASES = [
  {
    id: 'list_include',
    title: 'Leads page 1, 50/page, every child (emails, phone numbers, location, activities, assignee)',
    systems: {
      'leadnet REST': { url: `${LEADNET}/v1/leads?${INCLUDE}&opts[per_page]=50`, headers: keyA },
      'leadnet GraphQL': gql(`${LEADNET}/graphql`, LN_GQL, { page: 1, perPage: 50 }, keyA),
      PostGraphile: gql(PGL, PGL_GQL, { company: COMPANY_A, first: 50, offset: 0 }),
      bare: { url: `${BARE}/v1/leads?opts[per_page]=50`, headers: keyA },
      'bare (owner only)': { url: `${BARE}/owner/leads?company=${COMPANY_A}&opts[per_page]=50` },
    },
  },
  {
    id: 'list_default',
    title: 'Leads, plain default list (no include, no opts: SPEC default include=* and per_page 50)',
    systems: {
      'leadnet REST': { url: `${LEADNET}/v1/leads`, headers: keyA },
      bare: { url: `${BARE}/v1/leads`, headers: keyA },
    },
  },
  {
    id: 'list_page50',
    title: 'Leads page 50 (offset 2,450), 50/page, every child',
    systems: {
      'leadnet REST': { url: `${LEADNET}/v1/leads?${INCLUDE}&opts[per_page]=50&opts[page]=50`, headers: keyA },
      'leadnet GraphQL': gql(`${LEADNET}/graphql`, LN_GQL, { page: 50, perPage: 50 }, keyA),
      PostGraphile: gql(PGL, PGL_GQL, { company: COMPANY_A, first: 50, offset: 2450 }),
      bare: { url: `${BARE}/v1/leads?opts[per_page]=50&opts[page]=50`, headers: keyA },
    },
  },
  {
    id: 'store_50mi',
    title: 'Store locator, point, radius 50mi, 15/page + 4 facets (100 origins cycled)',
    systems: {
      'leadnet REST': { base: LEADNET, path: (i) => storePath(i, '50mi') },
      bare: { base: BARE, path: (i) => storePath(i, '50mi') },
    },
  },
  {
    id: 'store_1000mi',
    title: 'Store locator, point, default radius (1000mi), 15/page + 4 facets',
    systems: {
      'leadnet REST': { base: LEADNET, path: (i) => storePath(i, null) },
      bare: { base: BARE, path: (i) => storePath(i, null) },
    },
  },
  {
    id: 'lead_create',
    title: 'Lead create (quote request: 1 email, 1 phone, location, 1 QuoteRequest activity), company B admin',
    systems: {
      'leadnet REST': { url: `${LEADNET}/v1/leads`, method: 'POST', headers: { ...json, 'x-api-key': KEY_B }, dynamicBody: leadBody },
      'bare (1 statement)': { url: `${BARE}/v1/leads`, method: 'POST', headers: { ...json, 'x-api-key': KEY_B }, dynamicBody: leadBody },
      'bare (tx, 1 INSERT per row)': { url: `${BARE}/v1/leads?mode=tx`, method: 'POST', headers: { ...json, 'x-api-key': KEY_B }, dynamicBody: leadBody },
    },
  },
  {
    id: 'lead_batch',
    title: `Lead intake: POST /v1/leads/batch of ${BATCH_SIZE} quote requests against the bare one-statement create, in leads/s, company B admin`,
    systems: {
      'leadnet REST': { url: `${LEADNET}/v1/leads/batch`, method: 'POST', headers: { ...json, 'x-api-key': KEY_B }, dynamicBody: batchBody, items: BATCH_SIZE },
      'bare (1 statement)': { url: `${BARE}/v1/leads`, method: 'POST', headers: { ...json, 'x-api-key': KEY_B }, dynamicBody: leadBody },
    },
  },
  ...listCases(),
  ...roleCases(),
].filter((c) => (c.named ? ONLY?.includes(c.id) : !ONLY || ONLY.includes(c.id) || ONLY.some((o) => o.endsWith('*') && c.id.startsWith(o.slice(0, -1)))));

// ---- one request, outside autocannon (payload checks, statement counts) ------------------------------
async function once(sys, i = 0) {
  const url = sys.path ? sys.base + sys.path(i) : sys.url;
  const res = await fetch(url, { method: sys.method ?? 'GET', headers: sys.headers, body: sys.dynamicBody ? sys.dynamicBody() : sys.body });
  const text = await res.text();
  let body;
  try {
    body = JSON.parse(text);
  } catch {
    body = text;
  }
  return { status: res.status, body };
}

const iso = (d) => (d == null ? d : new Date(d).toISOString());
/** Any system's leads answer -> { total, leads } in the REST shape. */
function normalizeLeads(system, body) {
  if (system === 'leadnet GraphQL') {
    const r = body.data.leads;
    return {
      total: r.meta.total,
      leads: r.nodes.map((n) => ({
        id: n.id, name: n.name, status: n.status, created_at: iso(n.createdAt),
        phone_numbers: n.phoneNumbers.map((p) => ({ id: p.id, phone_number: p.phoneNumber, country_code: p.countryCode, formatted: p.formatted })),
        emails: n.emails.map((e) => ({ id: e.id, email: e.email })),
        location: n.location && { id: n.location.id, address_name: n.location.addressName, street_line_one: n.location.streetLineOne, street_line_two: n.location.streetLineTwo,
          postal_code: n.location.postalCode, city: n.location.city, province: n.location.province, country: n.location.country, latitude: n.location.latitude, longitude: n.location.longitude },
        assignee: n.assignee && { id: n.assignee.id, type: n.assignee.type, name: n.assignee.name, company_retailer_id: n.assignee.companyRetailerId, retailer_location_id: n.assignee.retailerLocationId },
        lead_activities: n.leadActivities.map((a) => ({ id: a.id, type: a.type, lead_id: a.leadId, data: a.data, source_type: a.sourceType, source_id: a.sourceId,
          crm_id: a.crmId, crm_provider: a.crmProvider, crm_data_cache: a.crmDataCache, created_at: iso(a.createdAt) })),
      })),
    };
  }
  if (system === 'PostGraphile') {
    const r = body.data.allLeads;
    return {
      total: r.totalCount,
      leads: r.nodes.map((n) => {
        const a = n.companyRetailerLocationByAssigneeId;
        const loc = n.locationByLocationId;
        return {
          id: n.rowId, name: n.name, status: n.status, created_at: iso(n.createdAt),
          phone_numbers: n.phoneNumbersByLeadId.nodes.map((p) => ({ id: p.rowId, phone_number: p.phoneNumber, country_code: p.countryCode, formatted: p.formatted })),
          emails: n.emailsByLeadId.nodes.map((e) => ({ id: e.rowId, email: e.email })),
          location: loc && { id: loc.rowId, address_name: loc.addressName, street_line_one: loc.streetLineOne, street_line_two: loc.streetLineTwo,
            postal_code: loc.postalCode, city: loc.city, province: loc.province, country: loc.country, latitude: loc.latitude, longitude: loc.longitude },
          assignee: a && { id: a.rowId, type: 'CompanyRetailerLocation', name: a.name?.trim() ? a.name : (a.retailerLocationByRetailerLocationId?.name ?? null),
            company_retailer_id: a.companyRetailerId, retailer_location_id: a.retailerLocationId },
          lead_activities: n.leadActivitiesByLeadId.nodes.map((x) => ({ id: x.rowId, type: x.type, lead_id: x.leadId, data: x.data, source_type: x.sourceType, source_id: x.sourceId,
            crm_id: x.crmId, crm_provider: x.crmProvider, crm_data_cache: x.crmDataCache, created_at: iso(x.createdAt) })),
        };
      }),
    };
  }
  return { total: body.meta.total, leads: body.leads.map((l) => ({ ...l, created_at: iso(l.created_at), lead_activities: l.lead_activities?.map((a) => ({ ...a, created_at: iso(a.created_at) })) })) };
}

/** Paths where two values differ (first 5). */
function diff(a, b, at = '$', out = []) {
  if (out.length >= 5) return out;
  if (a === b) return out;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) {
    out.push(`${at}: ${JSON.stringify(a)?.slice(0, 80)} != ${JSON.stringify(b)?.slice(0, 80)}`);
    return out;
  }
  if (Array.isArray(a) !== Array.isArray(b)) return (out.push(`${at}: array vs object`), out);
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  for (const k of keys) {
    if (!(k in a) || !(k in b)) out.push(`${at}.${k}: only in ${k in a ? 'first' : 'second'}`);
    else diff(a[k], b[k], `${at}.${k}`, out);
  }
  return out;
}

async function checkPayloads() {
  const report = [];
  for (const c of CASES) {
    if (c.id === 'lead_batch') {
      // Every item of one batch is a 201, as a single create of it would be.
      const { status, body } = await once(c.systems['leadnet REST']);
      const statuses = [...new Set((body.results ?? []).map((r) => r.status))];
      const ok = status === 200 && body.results?.length === BATCH_SIZE && statuses.join() === '201';
      report.push({ case: c.id, ok, detail: { status, items: body.results?.length, statuses }, problems: ok ? [] : [`leadnet REST: HTTP ${status} ${JSON.stringify(body).slice(0, 300)}`] });
      continue;
    }
    if (c.id === 'lead_create') {
      // One create each; the responses must carry the same fields and children.
      const shapes = {};
      for (const [name, sys] of Object.entries(c.systems)) {
        const { status, body } = await once(sys);
        const lead = body.lead ?? body;
        // leadnet's additions beyond the contract (PRODUCT.md 11: the lead loop's timers and outcome) are not in the bare reference.
        const contractKeys = Object.keys(lead).filter((k) => !['breached', 'respond_by', 'escalated_at', 'outcome'].includes(k));
        shapes[name] = { status, keys: contractKeys.sort().join(','), emails: lead.emails?.length, phones: lead.phone_numbers?.length, activities: lead.lead_activities?.length,
          location: lead.location ? Object.keys(lead.location).sort().join(',') : null, latlng: lead.location ? [lead.location.latitude, lead.location.longitude] : null,
          formatted: lead.phone_numbers?.[0]?.formatted, activity: lead.lead_activities?.[0] && Object.keys(lead.lead_activities[0]).sort().join(',') };
      }
      const ref = JSON.stringify({ ...Object.values(shapes)[0], status: undefined, formatted: undefined });
      const problems = Object.entries(shapes).filter(([, s]) => JSON.stringify({ ...s, status: undefined, formatted: undefined }) !== ref || s.status !== 201).map(([n, s]) => `${n}: ${JSON.stringify(s)}`);
      report.push({ case: c.id, ok: problems.length === 0, detail: shapes, problems });
      continue;
    }
    if (c.list || c.roles) {
      // Lists: the totals and the ids in order must be equal; role cases: every answer is a 200.
      const detail = {};
      const problems = [];
      for (const [name, sys] of Object.entries(c.systems)) {
        const { status, body } = await once(sys);
        if (status !== 200 || body.errors) {
          problems.push(`${name}: HTTP ${status} ${JSON.stringify(body).slice(0, 300)}`);
          continue;
        }
        detail[name] = name === 'PostGraphile'
          ? { total: body.data.list.totalCount, ids: body.data.list.nodes.map((n) => n.rowId) }
          : { total: body.meta.total, ids: (body[c.list ?? 'leads'] ?? []).map((n) => n.id), bytes: JSON.stringify(body).length, ...(body.meta.aggs ? { aggs: body.meta.aggs } : {}) };
        if (c.roles) {
          // A total read from kept counts must equal the same list's total counted row by row (a `where`
          // every lead satisfies is never answered from them).
          const counted = await once({ ...sys, url: `${sys.url}${sys.url.includes('?') ? '&' : '?'}opts[where][id][exists]=true` });
          if (counted.body.meta?.total !== body.meta.total) problems.push(`${name}: total ${body.meta.total}, counted row by row ${counted.body.meta?.total}`);
        }
      }
      if (c.list && detail['leadnet REST'] && detail.PostGraphile) {
        const d = diff({ total: detail['leadnet REST'].total, ids: detail['leadnet REST'].ids }, detail.PostGraphile);
        if (d.length) problems.push(`PostGraphile vs leadnet REST: ${d.join('; ')}`);
      }
      // On the engine, each role's answer must equal PostgreSQL's: the exact total, the ids in order, the facets.
      for (const [name, sys] of Object.entries(c.systems)) {
        const pg = sys.role && detail[`leadnet REST ${sys.role}`];
        if (!pg || !detail[name]) continue;
        const d = diff({ total: pg.total, ids: pg.ids, aggs: pg.aggs }, { total: detail[name].total, ids: detail[name].ids, aggs: detail[name].aggs });
        if (d.length) problems.push(`${name} vs PostgreSQL: ${d.join('; ')}`);
      }
      for (const v of Object.values(detail)) {
        v.ids = v.ids.length;
        delete v.aggs;
      }
      report.push({ case: c.id, ok: problems.length === 0, detail, problems });
      continue;
    }
    const samples = c.id.startsWith('store') ? [0, 1, 2, 3, 4] : [0];
    const problems = [];
    const detail = {};
    for (const i of samples) {
      const answers = {};
      for (const [name, sys] of Object.entries(c.systems)) {
        const { status, body } = await once(sys, i);
        if (status !== 200) {
          problems.push(`${name}: HTTP ${status} ${JSON.stringify(body).slice(0, 200)}`);
          continue;
        }
        // the locator's additions beyond the contract (PRODUCT.md 11) are not in the bare reference
        const plain = (b) => ({ ...b, results: b.results.map(({ open_now, local_weekday, directions_url, distance, ...r }) => r), meta: { ...b.meta, distance_unit: undefined } });
        answers[name] = c.id.startsWith('store') ? plain(body) : normalizeLeads(name, body);
      }
      const names = Object.keys(answers);
      const [refName] = names;
      for (const name of names.slice(1)) {
        const d = diff(answers[refName], answers[name]);
        if (d.length) problems.push(`${name} vs ${refName} (sample ${i}): ${d.join('; ')}`);
      }
      if (i === 0) {
        for (const name of names) {
          const a = answers[name];
          detail[name] = c.id.startsWith('store')
            ? { total: a.meta.total, results: a.results.length, fields: Object.keys(a.results[0] ?? {}).length, bytes: JSON.stringify(a).length }
            : { total: a.total, rows: a.leads.length, fields: Object.keys(a.leads[0] ?? {}).join(','), children: a.leads.reduce((s, l) => s + l.emails.length + l.phone_numbers.length + l.lead_activities.length + (l.location ? 1 : 0) + (l.assignee ? 1 : 0), 0) };
        }
      }
    }
    report.push({ case: c.id, ok: problems.length === 0, detail, problems });
  }
  return report;
}

// ---- SQL statements per leadnet request --------------------------------------------------------------
const counter = async (at, p = '/') => (await fetch(at + p)).json();
async function statementsPerRequest() {
  const out = [];
  for (const c of CASES) {
    for (const [name, sys] of Object.entries(c.systems)) {
      if (!name.startsWith('leadnet')) continue;
      const n = 10;
      const at = sys.sqlcount ?? SQLCOUNT;
      const before = (await counter(at)).queries;
      for (let i = 0; i < n; i++) await once(sys, i);
      const after = (await counter(at)).queries;
      await counter(at, '/record?on=1');
      await once(sys, 0);
      const { recent } = await counter(at, '/record?on=0');
      out.push({ case: c.id, system: name, perRequest: (after - before) / n, statements: recent.map((s) => s.slice(0, 110)) });
    }
  }
  return out;
}

// ---- load ---------------------------------------------------------------------------------------------
function rss(pid) {
  try {
    const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (k) => Number(new RegExp(`${k}:\\s+(\\d+)`).exec(status)?.[1] ?? 0);
    return { rssMB: +(kb('VmRSS') / 1024).toFixed(1), hwmMB: +(kb('VmHWM') / 1024).toFixed(1) };
  } catch {
    return null;
  }
}

/**
 * VmRSS of the leadnet processes every RSS_SAMPLE_MS: the highest sample since `take()` (one run's peak) and
 * since the start. The process's own peak is VmHWM (the kernel's high-water mark, nothing between samples missed).
 */
function rssSampler(pids) {
  const peaks = new Map(pids.map((pid) => [pid, { run: 0, all: 0 }]));
  const timer = setInterval(() => {
    for (const [pid, peak] of peaks) {
      const r = rss(pid);
      if (r) {
        peak.run = Math.max(peak.run, r.rssMB);
        peak.all = Math.max(peak.all, r.rssMB);
      }
    }
  }, RSS_SAMPLE_MS);
  timer.unref();
  return {
    /** The highest sample of `pid` since the last take, then starts again. */
    take(pid) {
      const peak = peaks.get(pid);
      if (!peak) return null;
      const run = peak.run;
      peak.run = 0;
      return run;
    },
    all: (pid) => peaks.get(pid)?.all ?? null,
    stop: () => clearInterval(timer),
  };
}

function load(sys, seconds) {
  let i = 0;
  const opts = { connections: CONNECTIONS, duration: seconds, timeout: 30 };
  if (sys.path) {
    opts.url = sys.base;
    opts.requests = [{ method: 'GET', setupRequest: (req) => ({ ...req, path: sys.path(i++) }) }];
  } else if (sys.dynamicBody) {
    opts.url = sys.url;
    opts.requests = [{ method: sys.method, headers: sys.headers, setupRequest: (req) => ({ ...req, body: sys.dynamicBody() }) }];
  } else {
    Object.assign(opts, { url: sys.url, method: sys.method ?? 'GET', headers: sys.headers, body: sys.body });
  }
  return new Promise((resolve, reject) => {
    autocannon(opts, (err, r) => (err ? reject(err) : resolve(r)));
  });
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

async function main() {
  const started = Date.now();
  const results = { started: new Date().toISOString(), config: { ROUNDS, DURATION_S, WARMUP_S, CONNECTIONS, origins: ORIGINS.length }, rounds: [], runs: [] };
  results.rssStart = rss(LEADNET_PID);
  results.leadnetStart = LEADNET_START;
  console.log(`leadnet (${LEADNET_START === 'prod' ? 'production start' : 'development harness'}) RSS at start: ${JSON.stringify(results.rssStart)}`);
  const sampler = rssSampler([LEADNET_PID, ...(ENGINE ? [ENGINE.pid] : [])]);

  console.log('checking payloads...');
  results.payloads = await checkPayloads();
  for (const p of results.payloads) console.log(`  ${p.ok ? 'OK  ' : 'DIFF'} ${p.case} ${JSON.stringify(p.detail)}${p.problems.length ? `\n       ${p.problems.join('\n       ')}` : ''}`);

  console.log('counting SQL statements per leadnet request...');
  results.statements = await statementsPerRequest();
  for (const s of results.statements) console.log(`  ${s.case} ${s.system}: ${s.perRequest}`);

  const systemsOf = (c) => Object.keys(c.systems);
  for (let round = 1; round <= ROUNDS; round++) {
    const uptime = execSync('uptime').toString().trim();
    results.rounds.push({ round, uptime, at: new Date().toISOString() });
    console.log(`\n== round ${round}: ${uptime}`);
    for (const c of CASES) {
      const names = systemsOf(c);
      const order = names.map((_, k) => names[(k + round - 1) % names.length]);
      for (const name of order) {
        const sys = c.systems[name];
        const isLeadnet = name.startsWith('leadnet');
        const pid = sys.pid ?? LEADNET_PID;
        const before = isLeadnet ? rss(pid) : null;
        if (isLeadnet) sampler.take(pid);
        await load(sys, WARMUP_S);
        const r = await load(sys, DURATION_S);
        const after = isLeadnet ? rss(pid) : null;
        // autocannon stops with requests in flight; let the server finish them before the next run.
        await new Promise((r) => setTimeout(r, DRAIN_MS));
        if (after) after.peakMB = Math.max(sampler.take(pid), after.rssMB);
        const run = {
          round, case: c.id, system: name,
          // only successful answers count: a 429 or a 500 is not throughput
          rps: +((r.requests.total - r.non2xx - r.errors - r.timeouts) / DURATION_S).toFixed(1), items: sys.items ?? 1, p50: r.latency.p50, p99: r.latency.p99, mean: +r.latency.average.toFixed(1),
          requests: r.requests.total, non2xx: r.non2xx, errors: r.errors, timeouts: r.timeouts, rssBefore: before, rssAfter: after,
        };
        results.runs.push(run);
        console.log(`  ${c.id.padEnd(13)} ${name.padEnd(28)} ${String(run.rps).padStart(7)} rps${run.items > 1 ? ` (${Math.round(run.rps * run.items)} records/s)` : ''}  p50 ${String(run.p50).padStart(5)} ms  p99 ${String(run.p99).padStart(5)} ms  non2xx ${run.non2xx} errors ${run.errors}${after ? `  RSS ${before.rssMB}->${after.rssMB} MB (peak ${after.peakMB})` : ''}`);
      }
    }
  }
  results.rssEnd = rss(LEADNET_PID);
  sampler.stop();
  // The peak is the kernel's high-water mark (VmHWM): it misses nothing between samples.
  results.rssPeak = { hwmMB: results.rssEnd?.hwmMB ?? null, sampledMB: sampler.all(LEADNET_PID), limitMB: RSS_LIMIT_MB || null };
  results.rssOverLimit = RSS_LIMIT_MB > 0 && results.rssPeak.hwmMB != null && results.rssPeak.hwmMB > RSS_LIMIT_MB;
  results.wallSeconds = Math.round((Date.now() - started) / 1000);

  // Medians and ratios.
  results.summary = CASES.map((c) => {
    const rows = systemsOf(c).map((name) => {
      const mine = results.runs.filter((r) => r.case === c.id && r.system === name);
      return { system: name, rps: median(mine.map((r) => r.rps)), records: median(mine.map((r) => r.rps * (r.items ?? 1))), p50: median(mine.map((r) => r.p50)), p99: median(mine.map((r) => r.p99)),
        non2xx: mine.reduce((s, r) => s + r.non2xx, 0), errors: mine.reduce((s, r) => s + r.errors + r.timeouts, 0), rpsRounds: mine.map((r) => r.rps) };
    });
    return { case: c.id, title: c.title, rows };
  });
  fs.writeFileSync(path.join(OUT, 'results.json'), JSON.stringify(results, null, 1));
  fs.writeFileSync(path.join(OUT, 'results.md'), markdown(results));
  console.log(`\n${markdown(results)}`);
  if (results.rssOverLimit) {
    console.error(`leadnet's RSS peaked at ${results.rssPeak.hwmMB} MB, above RSS_LIMIT_MB=${RSS_LIMIT_MB}`);
    process.exitCode = 3;
  }
}

/** The report's RSS line: start, end, peak and the limit. */
function rssLine(results) {
  const { rssStart: start, rssEnd: end, rssPeak: peak } = results;
  const how = results.leadnetStart === 'prod' ? 'the production start (`npm run start:prod` on dist/)' : 'the development harness (tsx, no heap cap)';
  const verdict = !peak?.limitMB ? '' : results.rssOverLimit ? `, **ABOVE the ${peak.limitMB} MB limit**` : `, within the ${peak.limitMB} MB limit`;
  return `leadnet RSS, ${how}: start ${start?.rssMB} MB, end ${end?.rssMB} MB, peak ${peak?.hwmMB} MB (VmHWM; highest ${RSS_SAMPLE_MS} ms sample ${peak?.sampledMB} MB)${verdict}`;
}

function markdown(results) {
  const lines = [`# leadnet side-by-side benchmark (${results.started})`, '',
    `autocannon, ${results.config.CONNECTIONS} connections, ${results.config.DURATION_S} s per run after ${results.config.WARMUP_S} s warm-up, ${results.config.ROUNDS} interleaved rounds; medians over rounds. Ratios are throughput ratios in records/s (rps, except for a batch: rps x its records); latency ratio = p50 ratio. leadnet runs ${results.leadnetStart === 'prod' ? 'as production starts it (`npm run start:prod` on dist/)' : 'on the development harness (tsx, no heap cap)'}.`, '', rssLine(results), '',
    '| case | system | rps | records/s | p50 ms | p99 ms | rps by round | non-2xx | errors | records/s vs leadnet REST | leadnet REST / this (records/s) |', '|---|---|---:|---:|---:|---:|---|---:|---:|---:|---:|'];
  for (const s of results.summary) {
    const ln = s.rows.find((r) => r.system === 'leadnet REST');
    for (const r of s.rows) {
      const records = r.records ?? r.rps;
      const lnRecords = ln && (ln.records ?? ln.rps);
      lines.push(`| ${s.case} | ${r.system} | ${r.rps.toFixed(1)} | ${records.toFixed(1)} | ${r.p50} | ${r.p99} | ${r.rpsRounds.join(' / ')} | ${r.non2xx} | ${r.errors} | ${ln ? (records / lnRecords).toFixed(2) : ''} | ${ln && r !== ln ? (lnRecords / records).toFixed(2) : ''} |`);
    }
  }
  lines.push('', '## SQL statements per leadnet request', '', '| case | system | statements |', '|---|---|---:|');
  for (const s of results.statements ?? []) lines.push(`| ${s.case} | ${s.system} | ${s.perRequest} |`);
  lines.push('', '## Payload checks', '');
  for (const p of results.payloads ?? []) lines.push(`- ${p.ok ? 'equal' : '**DIFFERENT**'}: ${p.case} ${JSON.stringify(p.detail)}${p.problems.length ? ` — ${p.problems.join('; ')}` : ''}`);
  lines.push('', '## Load before each round', '');
  for (const r of results.rounds) lines.push(`- round ${r.round} (${r.at}): ${r.uptime}`);
  lines.push('', '## leadnet RSS by run', '', '| round | case | system | before MB | after MB | peak MB (sampled) |', '|---:|---|---|---:|---:|---:|');
  for (const r of results.runs.filter((x) => x.rssAfter)) lines.push(`| ${r.round} | ${r.case} | ${r.system} | ${r.rssBefore?.rssMB} | ${r.rssAfter.rssMB} | ${r.rssAfter.peakMB} |`);
  lines.push('', `${rssLine(results)}; wall ${results.wallSeconds} s`);
  return lines.join('\n') + '\n';
}

/**
 * MODE=profile: load on leadnet REST only (the server runs under --cpu-prof): PROFILE_CASES (comma list of
 * case ids, default list_include, else the first case CASES selects), DURATION_S each.
 */
async function profile() {
  const wanted = env.PROFILE_CASES ? env.PROFILE_CASES.split(',') : ['list_include'];
  let cases = CASES.filter((c) => wanted.includes(c.id) && c.systems['leadnet REST']);
  if (!cases.length) cases = CASES.filter((c) => c.systems['leadnet REST']).slice(0, 1);
  for (const c of cases) {
    const sys = c.systems['leadnet REST'];
    await load(sys, WARMUP_S);
    const r = await load(sys, DURATION_S);
    console.log(`profile load ${c.id}: ${r.requests.average} rps, p50 ${r.latency.p50} ms, p99 ${r.latency.p99} ms, non2xx ${r.non2xx}`);
  }
}

(env.MODE === 'profile' ? profile() : main()).catch((e) => {
  console.error(e);
  process.exit(1);
});
