import path from 'node:path';
import { Router, type Request, type Response } from 'express';
import { build } from 'esbuild';
import type { Config } from '../config';
import type { ContextDeps } from '../context';
import { isUuid } from '../modules/store-locator/store-locator.params';

const CLIENT_DIR = path.join(__dirname, 'client');

/**
 * The browser code (`client/widget.ts`, Leaflet and the stylesheets) as one script, bundled by esbuild
 * on first use and kept: no build step, no CDN. The tile server comes from the configuration.
 */
export async function bundleWidget(config: Config): Promise<string> {
  const result = await build({
    entryPoints: [path.join(CLIENT_DIR, 'widget.ts')],
    bundle: true,
    write: false,
    format: 'iife',
    target: ['es2020'],
    minify: true,
    legalComments: 'eof',
    charset: 'utf8',
    loader: { '.css': 'text' },
    define: { __LEADNET_LOCATOR__: JSON.stringify(config.locatorWidget) },
    tsconfig: path.join(CLIENT_DIR, 'tsconfig.json'),
    logLevel: 'silent',
  });
  return result.outputFiles[0].text;
}

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

function page(res: Response, status: number, lang: 'en' | 'fr', title: string, body: string, config: Config): void {
  res
    .status(status)
    .set(
      'Content-Security-Policy',
      `default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data: ${tileSource(config.locatorWidget.tileUrl)}; ` +
        `connect-src 'self'; frame-ancestors *; base-uri 'none'; form-action 'none'`,
    )
    .type('html')
    .send(`<!doctype html>
<html lang="${lang}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>
  body { margin: 0; background: #f6f8fa; color: #1f2328; font-family: system-ui, -apple-system, "Segoe UI", Roboto, Arial, sans-serif; }
  main { max-width: 1240px; margin: 0 auto; padding: 20px 16px 32px; }
  h1 { font-size: clamp(1.35rem, 3vw, 1.9rem); margin: 0 0 16px; }
</style>
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
 * store locator API; nothing here needs a key.
 */
export function locatorWidgetRouter(deps: Pick<ContextDeps, 'orm' | 'config'>): Router {
  const router = Router();
  let script: Promise<string> | undefined;

  router.get('/locator/widget.js', async (_req, res) => {
    script ??= bundleWidget(deps.config).catch((e) => {
      script = undefined;
      throw e;
    });
    res.set('Cache-Control', 'public, max-age=300').type('application/javascript').send(await script);
  });

  router.get('/locator/:companyId', async (req, res) => {
    const lang = typeof req.query.lang === 'string' && req.query.lang.toLowerCase().startsWith('fr') ? 'fr' : 'en';
    const id = req.params.companyId;
    const [company] = isUuid(id) ? await deps.orm.em.getConnection().execute('select id, name from companies where id = ?::uuid', [id]) : [];
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
    page(res, 200, lang, title, `<h1>${escapeHtml(title)}</h1>\n<div data-leadnet-locator ${attributes}></div>\n<script src="widget.js"></script>`, deps.config);
  });

  return router;
}
