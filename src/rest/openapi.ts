import fs from 'node:fs';
import path from 'node:path';
import { toolPageHeaders } from '../http/page-headers';
import { Router } from 'express';
import type { SearchDocument } from '../search/types';

/**
 * The committed OpenAPI 3.1 document of the /v1 contract (`schema/openapi.json`), the output of
 * `npm run openapi:emit` (src/rest/openapi-document.ts), served as written.
 */
export const OPENAPI_PATH = path.join(__dirname, '..', '..', 'schema', 'openapi.json');

let cached: { text: string; document: OpenApiDocument } | undefined;

/** A loose view of the document: enough for serving it and for the test-side validator. */
export interface OpenApiDocument {
  openapi: string;
  info: { title: string; version: string };
  servers?: Array<{ url: string }>;
  security?: Array<Record<string, string[]>>;
  tags?: Array<{ name: string; description?: string }>;
  paths: Record<string, Record<string, any>>;
  components: Record<string, Record<string, any>>;
}

/** The list endpoints (their paths, e.g. `/leads`) and the search documents their `q` and `opts` read. */
export type ListDocuments = Readonly<Record<string, SearchDocument>>;

/** Reads and parses the document once per process. */
export function openApiDocument(): OpenApiDocument {
  return load().document;
}

function load() {
  if (!cached) {
    const text = fs.readFileSync(OPENAPI_PATH, 'utf8');
    cached = { text, document: JSON.parse(text) };
  }
  return cached;
}

const SWAGGER_UI_DIR = path.dirname(require.resolve('swagger-ui-dist/package.json'));
/** The page's start-up script (`public/docs.js`, copied to dist/ by `npm run build`). */
const DOCS_SCRIPT = path.join(__dirname, 'public', 'docs.js');
/** The files of swagger-ui-dist the reference page loads (no CDN: the machine may have no internet). */
const ASSETS = new Set([
  'swagger-ui.css',
  'swagger-ui.css.map',
  'swagger-ui-bundle.js',
  'swagger-ui-bundle.js.map',
  'favicon-16x16.png',
  'favicon-32x32.png',
]);

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

function docsPage(base: string, title: string): string {
  const assets = escapeHtml(`${base}/docs/assets`);
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${escapeHtml(title)}</title>
<link rel="stylesheet" href="${assets}/swagger-ui.css">
<link rel="icon" type="image/png" href="${assets}/favicon-32x32.png" sizes="32x32">
</head>
<body>
<div id="swagger-ui" data-url="${escapeHtml(`${base}/openapi.json`)}"></div>
<script src="${assets}/swagger-ui-bundle.js"></script>
<script src="${assets}/docs.js"></script>
</body>
</html>
`;
}

/**
 * Public (no API key) routes of the contract's description, mounted inside the /v1 router:
 * `GET /openapi.json` (the document) and `GET /docs` (a browsable reference, Swagger UI served locally).
 */
export function openApiRouter(): Router {
  const router = Router();
  router.get('/openapi.json', (_req, res) => {
    res.type('application/json').send(load().text);
  });
  router.get('/docs', (req, res) => {
    toolPageHeaders(res).type('html').send(docsPage(req.baseUrl, openApiDocument().info.title));
  });
  router.get('/docs/assets/docs.js', (_req, res) => {
    res.sendFile(DOCS_SCRIPT, { maxAge: 0 });
  });
  router.get('/docs/assets/:file', (req, res, next) => {
    if (!ASSETS.has(req.params.file)) return next();
    res.sendFile(req.params.file, { root: SWAGGER_UI_DIR, maxAge: '1d' });
  });
  return router;
}
