import { Router, type Request, type Response } from 'express';
import type { Config } from '../config';
import type { ContextDeps } from '../context';
import { isUuid } from '../search/list';
import { embeddablePageHeaders, embeddableScriptHeaders, styleHash } from '../http/page-headers';
import { widgetBundleSource, widgetScript } from './bundle';
import { widgetCompany } from './locator-widget.queries';

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** A query parameter of the page passed on to the finder as a data attribute (single value, short). */
function passOn(req: Request, name: string, pattern: RegExp): string {
  const v = req.query[name];
  return typeof v === 'string' && v.length <= 40 && pattern.test(v) ? ` data-${name}="${escapeHtml(v)}"` : '';
}

/** `img-src` for the map tiles: the configured tile server's origin (`{s}` subdomains as a wildcard). */
function tileSource(tileUrl: string): string {
  const origin = /^https?:\/\/[^/]+/.exec(tileUrl.replace(/\{s\}/g, '*'));
  return origin ? origin[0] : "'self'";
}

const WORDS = {
  en: { title: (name: string) => `Find a ${name} store`, missing: 'This store finder does not exist.' },
  fr: { title: (name: string) => `Trouver un magasin ${name}`, missing: 'Ce localisateur de magasins n’existe pas.' },
};

/** The page's only inline style, allowed by its hash (no `'unsafe-inline'`). */
const PAGE_STYLE = `
  body { margin: 0; background: #f6f8fa; color: #1f2328; font-family: system-ui, -apple-system, "Segoe UI", Roboto, Arial, sans-serif; }
  main { max-width: 1240px; margin: 0 auto; padding: 20px 16px 32px; }
  h1 { font-size: clamp(1.35rem, 3vw, 1.9rem); margin: 0 0 16px; }
`;
/** A map pin, inline: the browser asks for no `/favicon.ico`. */
const FAVICON =
  "data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 24 24'%3E%3Cpath fill='%230b5cad' d='M12 2a7 7 0 0 0-7 7c0 5.25 7 13 7 13s7-7.75 7-13a7 7 0 0 0-7-7Zm0 9.5A2.5 2.5 0 1 1 12 6.5a2.5 2.5 0 0 1 0 5Z'/%3E%3C/svg%3E";

function page(res: Response, status: number, lang: 'en' | 'fr', title: string, body: string, config: Config): void {
  embeddablePageHeaders(res, {
    'default-src': "'none'",
    'script-src': "'self'",
    // The finder's own styles are constructed stylesheets (not subject to style-src); the page's is hashed.
    'style-src': styleHash(PAGE_STYLE),
    'img-src': `'self' data: ${tileSource(config.locatorWidget.tileUrl)}`,
    'connect-src': "'self'",
    'base-uri': "'none'",
    'form-action': "'none'",
  });
  // A 404 (an unknown or malformed id) is not kept by caches: the company may exist a minute later.
  if (status !== 200) res.set('Cache-Control', 'no-store');
  res
    .status(status)
    .type('html')
    .send(`<!doctype html>
<html lang="${lang}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<link rel="icon" href="${FAVICON}">
<style>${PAGE_STYLE}</style>
</head>
<body>
<main>
${body}
</main>
</body>
</html>
`);
}

/**
 * The store finder for shoppers (issue 13): `GET /locator/widget.js`, the finder a brand embeds in its site
 * with one script tag and one `<div data-leadnet-locator data-company="...">`, and `GET /locator/{company_id}`,
 * a complete page around it (query `lang`, `color`, `radius`, `units` are passed on). Both read the public
 * store locator API; nothing here needs a key. Headers: src/http/page-headers.ts; abuse cases:
 * docs/store-finder.md.
 */
export function locatorWidgetRouter(deps: Pick<ContextDeps, 'orm' | 'config'>, options: { bundle?: () => Promise<string> } = {}): Router {
  const router = Router();
  // Fails the start when the script is missing (a dist/ built without it), rather than each shopper's page.
  const bundle = options.bundle ?? widgetBundleSource();
  let script: Promise<string> | undefined;

  router.get('/locator/widget.js', async (_req, res) => {
    script ??= bundle()
      .then((text) => widgetScript(text, deps.config))
      .catch((e) => {
        script = undefined; // tried again on the next request
        throw e;
      });
    const text = await script; // a failure reaches the error handler: a 500 that no cache keeps
    embeddableScriptHeaders(res).set('Cache-Control', 'public, max-age=300').type('text/javascript').send(text);
  });

  router.get('/locator/:companyId', async (req, res) => {
    const lang = typeof req.query.lang === 'string' && req.query.lang.toLowerCase().startsWith('fr') ? 'fr' : 'en';
    const id = req.params.companyId;
    const company = isUuid(id) ? await widgetCompany(deps.orm, id) : undefined;
    if (!company) {
      page(res, 404, lang, WORDS[lang].missing, `<h1>${escapeHtml(WORDS[lang].missing)}</h1>`, deps.config);
      return;
    }
    const title = WORDS[lang].title(company.name);
    const attributes =
      `data-company="${escapeHtml(company.id)}" data-lang="${lang}"` +
      passOn(req, 'color', /^(#[0-9a-fA-F]{3,8}|[a-zA-Z]{3,20}|rgb\([\d\s,.%]+\))$/) +
      passOn(req, 'radius', /^\d{1,4}$/) +
      passOn(req, 'units', /^(mi|km)$/);
    // Relative, so the page works behind a proxy's path prefix; `/locator/{id}/` (trailing slash) too.
    const src = req.path.endsWith('/') ? '../widget.js' : 'widget.js';
    page(res, 200, lang, title, `<h1>${escapeHtml(title)}</h1>\n<div data-leadnet-locator ${attributes}></div>\n<script src="${src}"></script>`, deps.config);
  });

  return router;
}
