import path from 'node:path';
import { Router, type Request } from 'express';
import { parse, validate, type GraphQLSchema } from 'graphql';
import { exampleTabs } from './examples';
import { toolPageHeaders } from '../http/page-headers';

/**
 * The browser IDE for `/graphql`: GraphiQL with its React runtime, all served from the installed
 * packages (no CDN), so it works on a machine without internet. GraphiQL 3 is the last major with a
 * prebuilt browser bundle; later majors need a bundler and Monaco workers. The page's own start-up
 * script, stylesheet and icon are in `public/` (copied to dist/ by `npm run build`). Headers and abuse
 * cases: src/http/page-headers.ts, docs/graphiql.md.
 */
const PUBLIC = path.join(__dirname, 'public');
const ASSETS: Record<string, { file: string; maxAge: string }> = {
  'react.production.min.js': { file: path.join(packageDir('react'), 'umd', 'react.production.min.js'), maxAge: '1d' },
  'react-dom.production.min.js': { file: path.join(packageDir('react-dom'), 'umd', 'react-dom.production.min.js'), maxAge: '1d' },
  'graphiql.min.js': { file: path.join(packageDir('graphiql'), 'graphiql.min.js'), maxAge: '1d' },
  'graphiql.min.css': { file: path.join(packageDir('graphiql'), 'graphiql.min.css'), maxAge: '1d' },
  // The service's own files change with it: revalidated (ETag) on each load.
  'ide.js': { file: path.join(PUBLIC, 'ide.js'), maxAge: '0' },
  'ide.css': { file: path.join(PUBLIC, 'ide.css'), maxAge: '0' },
  'favicon.svg': { file: path.join(PUBLIC, 'favicon.svg'), maxAge: '1d' },
};

function packageDir(name: string): string {
  return path.dirname(require.resolve(`${name}/package.json`));
}

/** A browser asking for a page: a GET that accepts HTML and carries no operation. */
export function wantsIde(req: Request): boolean {
  return req.method === 'GET' && req.query.query === undefined && req.accepts(['application/json', 'text/html']) === 'text/html';
}

const json = (value: unknown) => JSON.stringify(value).replace(/</g, '\\u003c');
const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

function idePage(endpoint: string, tabs: typeof exampleTabs): string {
  const assets = escapeHtml(`${endpoint}/ide`);
  const config = json({ endpoint, tabs });
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>leadnet GraphQL</title>
<link rel="icon" type="image/svg+xml" href="${assets}/favicon.svg">
<link rel="stylesheet" href="${assets}/graphiql.min.css">
<link rel="stylesheet" href="${assets}/ide.css">
</head>
<body>
<form id="keybar" autocomplete="off">
  <label for="api-key">X-Api-Key</label>
  <input id="api-key" type="password" autocomplete="off" spellcheck="false" placeholder="paste an API key (npx leadnet keys generate)">
  <label class="remember"><input id="remember-key" type="checkbox"> Remember on this device</label>
  <small>sent with every request from this page, to this service only; kept in this tab unless remembered</small>
</form>
<div id="graphiql">Loading…</div>
<script type="application/json" id="leadnet-ide-config">${config}</script>
<script src="${assets}/react.production.min.js"></script>
<script src="${assets}/react-dom.production.min.js"></script>
<script src="${assets}/graphiql.min.js"></script>
<script src="${assets}/ide.js"></script>
</body>
</html>
`;
}

/**
 * `GET /graphql` from a browser (Accept: text/html, no `query` parameter) answers the IDE page, and
 * `GET /graphql/ide/<asset>` its scripts and styles. Everything else falls through to Apollo. The page
 * opens the example tabs `schema` answers: an app built without a module leaves that module's out.
 */
export function graphiqlRouter(schema: GraphQLSchema): Router {
  const router = Router();
  const tabs = exampleTabs.filter((tab) => validate(schema, parse(tab.query)).length === 0);
  router.get('/ide/:asset', (req, res) => {
    const asset = Object.hasOwn(ASSETS, req.params.asset) ? ASSETS[req.params.asset] : undefined;
    if (asset) res.sendFile(asset.file, { maxAge: asset.maxAge });
    else res.status(404).json({ status: 404, error: 'Not Found', message: `No route matches GET ${req.originalUrl}` });
  });
  router.get('/', (req, res, next) => {
    if (!wantsIde(req)) return next();
    toolPageHeaders(res).type('html').send(idePage(req.baseUrl, tabs));
  });
  return router;
}
