import { Router, type Request, type Response } from 'express';
import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';

/** How long the demo company lookup is kept: `GET /` needs no key, so it costs at most one query per period. */
const DEMO_TTL_MS = 30_000;

interface Home {
  name: 'leadnet';
  description: string;
  links: Record<string, string>;
  /** The demo network's company (seeded on the first embedded start) while it exists, else null. */
  demo_company: { id: string; name: string; store_finder: string } | null;
}

const LINKS: Array<{ key: string; href: string; title: string; note: string }> = [
  { key: 'graphiql', href: '/graphql', title: 'GraphiQL', note: 'the GraphQL IDE (paste an API key in the X-Api-Key field)' },
  { key: 'api_reference', href: '/v1/docs', title: 'API reference', note: 'the REST contract /v1, browsable (Swagger UI)' },
  { key: 'openapi', href: '/v1/openapi.json', title: 'OpenAPI document', note: 'the same reference as OpenAPI 3.1' },
  { key: 'health', href: '/healthz', title: 'Health', note: 'the process is up' },
  { key: 'ready', href: '/readyz', title: 'Readiness', note: 'the database answers' },
];

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** Finds the demo network's company while it exists (null when it is gone). */
export type DemoCompanyLookup = (em: EntityManager) => Promise<{ id: string; name: string } | null>;

/** What a module gives the start page: the lookup of the demo company whose store finder it links. */
export interface HomeContribution {
  home?: { demoCompany?: DemoCompanyLookup };
}

/**
 * `GET /`: where to go from here, for a person or a program. Browsers (HTML preferred in `Accept`) get a
 * page of links; anything else (`application/json`, `*\/*`, no `Accept`) gets the same links as JSON.
 * The demo company's store finder (found by the first `home.demoCompany` of `modules`, the company
 * module's) is linked while that company exists. docs/operations.md describes it.
 */
export function homeRouter(orm: MikroORM, modules: readonly HomeContribution[]): Router {
  const router = Router();
  const findDemoCompany = modules.find((m) => m.home?.demoCompany)?.home?.demoCompany;
  let demo: { at: number; value: Promise<Home['demo_company']> } | undefined;

  const demoCompany = (): Promise<Home['demo_company']> => {
    if (!findDemoCompany) return Promise.resolve(null);
    if (!demo || Date.now() - demo.at > DEMO_TTL_MS) {
      const value = findDemoCompany(orm.em.fork() as EntityManager).then(
        (c) => (c ? { id: c.id, name: c.name, store_finder: `/locator/${c.id}` } : null),
        () => {
          demo = undefined; // a database that does not answer is asked again next time
          return null;
        },
      );
      demo = { at: Date.now(), value };
    }
    return demo.value;
  };

  router.get('/', async (req: Request, res: Response) => {
    const company = await demoCompany();
    const links = Object.fromEntries(LINKS.map((l) => [l.key, l.href]));
    if (company) links.store_finder = company.store_finder;
    const home: Home = { name: 'leadnet', description: 'Leads, the company-retailer network and a public store locator: GraphQL at /graphql, REST at /v1.', links, demo_company: company };
    res.vary('Accept').set('Cache-Control', 'no-store');
    if (req.accepts(['json', 'html']) === 'html') {
      res
        .set('Content-Security-Policy', "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'")
        .set('X-Content-Type-Options', 'nosniff')
        .type('html')
        .send(page(company));
      return;
    }
    res.json(home);
  });
  return router;
}

function page(company: Home['demo_company']): string {
  const items = LINKS.map((l) => `<li><a href="${l.href}">${escapeHtml(l.title)}</a> <code>${l.href}</code>: ${escapeHtml(l.note)}</li>`);
  if (company) {
    items.splice(
      2,
      0,
      `<li><a href="${escapeHtml(company.store_finder)}">Store finder of ${escapeHtml(company.name)}</a> <code>${escapeHtml(company.store_finder)}</code>: the demo company's stores on a map, public</li>`,
    );
  }
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>leadnet</title>
<style>
  body { margin: 0 auto; max-width: 760px; padding: 24px 16px; font-family: system-ui, -apple-system, "Segoe UI", Roboto, Arial, sans-serif; color: #1f2328; line-height: 1.5; }
  li { margin: 6px 0; }
  code { background: #f6f8fa; padding: 1px 4px; border-radius: 4px; }
</style>
</head>
<body>
<h1>leadnet</h1>
<p>Leads, the company-retailer network and a public store locator: GraphQL at <code>/graphql</code>, REST at <code>/v1</code>.</p>
<ul>
${items.join('\n')}
</ul>
<p>Every <code>/v1</code> call but the store locator, and GraphQL, need an <code>X-Api-Key</code>: the first start prints one per role; <code>npx leadnet keys generate --user &lt;email&gt;</code> makes more. The same links as JSON: <code>curl http://&lt;this address&gt;/</code>.</p>
</body>
</html>
`;
}
