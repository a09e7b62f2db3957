import path from 'node:path';
import { Router, type Request } from 'express';
import { exampleTabs } from './examples';

/**
 * The browser IDE for `/graphql`: GraphiQL with its React runtime, all served from the installed
 * packages (no CDN), so it works on a machine without internet. GraphiQL 3 is the last major with a
 * prebuilt browser bundle; later majors need a bundler and Monaco workers.
 */
const ASSETS: Record<string, string> = {
  'react.production.min.js': path.join(packageDir('react'), 'umd', 'react.production.min.js'),
  'react-dom.production.min.js': path.join(packageDir('react-dom'), 'umd', 'react-dom.production.min.js'),
  'graphiql.min.js': path.join(packageDir('graphiql'), 'graphiql.min.js'),
  'graphiql.min.css': path.join(packageDir('graphiql'), 'graphiql.min.css'),
};

function packageDir(name: string): string {
  return path.dirname(require.resolve(`${name}/package.json`));
}

/** A browser asking for a page: a GET that accepts HTML and carries no operation. */
export function wantsIde(req: Request): boolean {
  return req.method === 'GET' && req.query.query === undefined && req.accepts(['application/json', 'text/html']) === 'text/html';
}

const json = (value: unknown) => JSON.stringify(value).replace(/</g, '\\u003c');

function idePage(endpoint: string): string {
  const assets = `${endpoint}/ide`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>leadnet GraphQL</title>
<link rel="stylesheet" href="${assets}/graphiql.min.css">
<style>
  html, body { height: 100%; margin: 0; }
  body { display: flex; flex-direction: column; font-family: system-ui, sans-serif; }
  #keybar { display: flex; gap: .5rem; align-items: center; padding: .4rem .75rem; border-bottom: 1px solid #ddd; font-size: 14px; }
  #keybar input { flex: 0 1 28rem; font: inherit; padding: .2rem .4rem; }
  #keybar small { color: #666; }
  #graphiql { flex: 1; min-height: 0; }
</style>
</head>
<body>
<div id="keybar">
  <label for="api-key">X-Api-Key</label>
  <input id="api-key" type="password" autocomplete="off" spellcheck="false" placeholder="paste an API key (npx leadnet keys generate)">
  <small>sent with every request from this page; kept in this browser only</small>
</div>
<div id="graphiql">Loading…</div>
<script src="${assets}/react.production.min.js"></script>
<script src="${assets}/react-dom.production.min.js"></script>
<script src="${assets}/graphiql.min.js"></script>
<script>
(function () {
  var endpoint = ${json(endpoint)};
  var keyInput = document.getElementById('api-key');
  var stored = 'leadnet.apiKey';
  try { keyInput.value = localStorage.getItem(stored) || ''; } catch (e) {}
  function makeFetcher(key) {
    return function fetcher(params, options) {
      var headers = Object.assign({ 'Content-Type': 'application/json', Accept: 'application/json' }, (options && options.headers) || {});
      if (key) headers['X-Api-Key'] = key;
      return fetch(endpoint, { method: 'POST', headers: headers, body: JSON.stringify(params) }).then(function (r) { return r.json(); });
    };
  }
  var root = ReactDOM.createRoot(document.getElementById('graphiql'));
  // A new fetcher makes GraphiQL load the schema again: anonymous callers get no introspection.
  function render() {
    root.render(React.createElement(GraphiQL, {
      fetcher: makeFetcher(keyInput.value.trim()),
      defaultEditorToolsVisibility: true,
      defaultTabs: ${json(exampleTabs)},
      shouldPersistHeaders: false,
    }));
  }
  var pending;
  keyInput.addEventListener('input', function () {
    try { localStorage.setItem(stored, keyInput.value); } catch (e) {}
    clearTimeout(pending);
    pending = setTimeout(render, 300);
  });
  render();
})();
</script>
</body>
</html>
`;
}

/**
 * `GET /graphql` from a browser (Accept: text/html, no `query` parameter) answers the IDE page, and
 * `GET /graphql/ide/<asset>` its scripts and styles. Everything else falls through to Apollo.
 */
export function graphiqlRouter(): Router {
  const router = Router();
  router.get('/ide/:asset', (req, res) => {
    const file = ASSETS[req.params.asset];
    if (file) res.sendFile(file, { maxAge: '1d' });
    else res.status(404).json({ status: 404, error: 'Not Found', message: `No route matches GET ${req.originalUrl}` });
  });
  router.get('/', (req, res, next) => {
    if (!wantsIde(req)) return next();
    res.type('html').send(idePage(req.baseUrl));
  });
  return router;
}
