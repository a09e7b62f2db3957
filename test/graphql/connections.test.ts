import { createTestApp, gql, type TestApp } from '../support/app';
import { createLead, quoteRequest, roles } from '../support/leads';

/**
 * Relay cursor connections (`<list>Connection`): keyset pages over the same lists, scope and order.
 * Their plans (an index seek, never a scan of all leads, for every role) are checked in
 * test/search/lead-plans.test.ts.
 */
let t: TestApp;
let r: Awaited<ReturnType<typeof roles>>;
beforeAll(async () => {
  t = await createTestApp();
  r = await roles(t.em());
  // 14 leads, some at the same second (ties broken by id), some without a city (null sorts last).
  for (let i = 0; i < 14; i++) {
    await createLead(
      t,
      r.users.companyAdmin.key,
      quoteRequest({ name: `Cursor ${String(i).padStart(2, '0')}`, status: ['New', 'Won', 'Lost'][i % 3], assignee_id: i % 2 ? r.net.storeNorth.id : r.net.storeSouth.id, location: i % 4 ? { city: `City ${i % 5}` } : undefined }),
    );
  }
});
afterAll(() => t.close());

const PAGE = `{ totalCount pageInfo { hasNextPage hasPreviousPage startCursor endCursor } edges { cursor node { id } } nodes { id name } }`;

async function walk(key: string, args: string, size: number, backward = false) {
  const seen: string[] = [];
  let cursor: string | null = null;
  for (let i = 0; i < 50; i++) {
    const paging = backward ? `last: ${size}${cursor ? `, before: "${cursor}"` : ''}` : `first: ${size}${cursor ? `, after: "${cursor}"` : ''}`;
    const res = await gql(t, key, `{ leadsConnection(${[args, paging].filter(Boolean).join(', ')}) ${PAGE} }`);
    expect(res.body.errors).toBeUndefined();
    const c = res.body.data.leadsConnection;
    expect(c.nodes.map((n: any) => n.id)).toEqual(c.edges.map((e: any) => e.node.id));
    const ids = c.nodes.map((n: any) => n.id);
    seen.splice(backward ? 0 : seen.length, 0, ...ids);
    const more = backward ? c.pageInfo.hasPreviousPage : c.pageInfo.hasNextPage;
    if (!more) return { ids: seen, total: c.totalCount };
    cursor = backward ? c.pageInfo.startCursor : c.pageInfo.endCursor;
  }
  throw new Error('did not end');
}

async function pageList(key: string, args: string) {
  const res = await gql(t, key, `{ leads(${[args, 'perPage: 500'].filter(Boolean).join(', ')}) { meta { total } nodes { id } } }`);
  expect(res.body.errors).toBeUndefined();
  return { ids: res.body.data.leads.nodes.map((n: any) => n.id), total: res.body.data.leads.meta.total };
}

test.each([
  ['the default order', ''],
  ['a filter', 'where: {status: {in: ["New", "Won"]}}'],
  ['mixed directions on a nullable field', 'order: [CITY_DESC, NAME_ASC]'],
  ['q (relevance first)', 'q: "cursor"'],
])('forward and backward walks give every lead once, in the page list\'s order: %s', async (_, args) => {
  const key = r.users.companyAdmin.key;
  const expected = await pageList(key, args);
  expect(expected.ids.length).toBeGreaterThan(5);
  expect(await walk(key, args, 4)).toEqual(expected);
  expect(await walk(key, args, 5, true)).toEqual(expected);
});

test('a scoped role walks only its scope', async () => {
  const key = r.users.locationUser.key;
  const expected = await pageList(key, '');
  expect(expected.total).toBeGreaterThan(0);
  expect(expected.total).toBeLessThan((await pageList(r.users.companyAdmin.key, '')).total);
  expect(await walk(key, '', 3)).toEqual(expected);
  expect((await walk(r.users.otherAdmin.key, '', 3)).ids).toEqual([]);
});

test('cursors are bound to their list and order; bad arguments are BAD_USER_INPUT', async () => {
  const key = r.users.companyAdmin.key;
  const first = await gql(t, key, `{ leadsConnection(first: 2) ${PAGE} }`);
  const cursor = first.body.data.leadsConnection.pageInfo.endCursor;
  for (const args of [
    `first: 2, after: "${cursor}", order: [NAME_ASC]`,
    `first: 2, after: "${cursor}", q: "cursor"`,
    'first: 2, after: "bm90IGEgY3Vyc29y"',
    'first: 2, after: "%%%"',
    'first: 501',
    'first: -1',
    'first: 2, last: 2',
  ]) {
    const res = await gql(t, key, `{ leadsConnection(${args}) { totalCount } }`);
    expect([args, res.body.errors?.[0]?.extensions?.code]).toEqual([args, 'BAD_USER_INPUT']);
  }
  const products = await gql(t, key, `{ productsConnection(first: 1) { totalCount pageInfo { hasNextPage } edges { node { id } } } }`);
  expect(products.body.errors).toBeUndefined();
  const otherCursor = await gql(t, key, `{ leadActivitiesConnection(first: 1) { pageInfo { endCursor } } }`);
  const crossed = await gql(t, key, `{ leadsConnection(first: 1, after: "${otherCursor.body.data.leadActivitiesConnection.pageInfo.endCursor}") { totalCount } }`);
  expect(crossed.body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
});

test('other lists page by cursors too (lead activities)', async () => {
  const key = r.users.companyAdmin.key;
  const all = await gql(t, key, `{ leadActivities(perPage: 500) { meta { total } nodes { id } } }`);
  const ids: string[] = [];
  let after: string | null = null;
  for (;;) {
    const res: any = await gql(t, key, `{ leadActivitiesConnection(first: 5${after ? `, after: "${after}"` : ''}) { totalCount pageInfo { hasNextPage endCursor } nodes { id } } }`);
    ids.push(...res.body.data.leadActivitiesConnection.nodes.map((n: any) => n.id));
    if (!res.body.data.leadActivitiesConnection.pageInfo.hasNextPage) break;
    after = res.body.data.leadActivitiesConnection.pageInfo.endCursor;
  }
  expect(ids).toEqual(all.body.data.leadActivities.nodes.map((n: any) => n.id));
});

test('statements per page do not grow with `first`', async () => {
  const key = r.users.companyAdmin.key;
  const count = async (n: number) => {
    t.resetStatements();
    const res = await gql(t, key, `{ leadsConnection(first: ${n}) { edges { node { id emails { email } phoneNumbers { phoneNumber } location { city } assignee { id } leadActivities { type } } } } }`);
    expect(res.body.data.leadsConnection.edges).toHaveLength(n);
    return t.statements.length;
  };
  expect(await count(2)).toBe(await count(12));
});
