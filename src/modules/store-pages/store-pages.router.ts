import fs from 'node:fs';
import path from 'node:path';
import { Router, type Request, type Response } from 'express';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { ContextDeps } from '../../context';
import { contentSecurityPolicy } from '../../http/page-headers';
import { Refused, StoreContactService } from '../site-keys/store-contact.service';
import type { RenderedPage, StorePagesCache } from './store-pages.cache';
import { sitemapFiles, sitemapPage, sitemapStart, storePagesExecute } from './store-pages.repository';
import { rendered, StorePagesService } from './store-pages.service';
import { robotsTxt, SITEMAP_HEAD, SITEMAP_TAIL, SITEMAP_URLS_PER_FILE, sitemapFileCount, sitemapFileRange, sitemapIndexXml, sitemapUrlXml, xmlEscape } from './store-pages.sitemap';
import type { Lang } from './store-pages.words';

/** Browsers and shared caches keep a page this long, then may serve it stale this much longer while they ask again. */
export const PAGE_MAX_AGE_S = 60;
export const PAGE_STALE_S = 600;
/** Stores read per statement while a sitemap file is written. */
const SITEMAP_CHUNK = 5_000;

export interface StorePagesOptions {
  cache?: StorePagesCache;
  /** URLs per sitemap file (tests use a small one). */
  sitemapUrlsPerFile?: number;
  now?: () => Date;
}

/**
 * The pages' CSP: their own script and the self-hosted proof-of-work (its workers are data: URLs), the API
 * on the same origin, and the map's tiles from `tileUrl`'s origin.
 */
const pageCsp = (tileUrl: string) => contentSecurityPolicy({
  'default-src': "'none'",
  'script-src': "'self'",
  // The proof-of-work component sets inline styles on the elements it adds.
  'style-src': "'unsafe-inline'",
  'img-src': `'self' data:${/^https?:\/\//.test(tileUrl) ? ` ${new URL(tileUrl.replace(/\{[xyz]\}/g, '0')).origin}` : ''}`,
  'connect-src': "'self'",
  'worker-src': "'self' blob: data:",
  'base-uri': "'none'",
  'form-action': "'none'",
  'frame-ancestors': "'none'",
});

function pageHeaders(res: Response, csp: string): void {
  res.set({
    'Content-Security-Policy': csp,
    'X-Frame-Options': 'DENY',
    'Referrer-Policy': 'strict-origin-when-cross-origin',
    'Permissions-Policy': 'camera=(), microphone=(), geolocation=(), payment=(), usb=()',
  });
}

/** Sends a rendered answer with its validators; a matching `If-None-Match` or `If-Modified-Since` is a 304. */
function send(req: Request, res: Response, page: RenderedPage): void {
  if (page.status === 301) {
    res.set('Cache-Control', `public, max-age=${PAGE_MAX_AGE_S}`).redirect(301, page.location!);
    return;
  }
  if (page.status !== 200) {
    res.set('Cache-Control', 'no-store').status(page.status).type(page.contentType).send(page.body);
    return;
  }
  res.set({
    'Cache-Control': `public, max-age=${PAGE_MAX_AGE_S}, stale-while-revalidate=${PAGE_STALE_S}`,
    ETag: page.etag,
    'Last-Modified': page.lastModified.toUTCString(),
    'Content-Type': page.contentType,
  });
  res.status(200);
  if (req.fresh) {
    res.status(304).end();
    return;
  }
  res.send(page.body);
}

/** The self-hosted `altcha` component (the package's own UMD build, no third party). */
const ALTCHA_FILE = path.join(path.dirname(require.resolve('altcha')), 'altcha.umd.min.cjs');
const CONTACT_FILE = path.join(__dirname, 'public', 'contact.js');

/**
 * The public store pages (docs/store-pages.md): `/stores/{company}/{city}/{store}` and `/stores/{company}`
 * (French under `/fr`), `/sitemap.xml` with `/sitemaps/stores-{n}.xml`, `/robots.txt`, the form's script
 * and challenge. No key; rendered answers are kept in `cache` until a write purges them.
 */
export function storePagesRouter(deps: ContextDeps, options: StorePagesOptions = {}): Router {
  const execute = storePagesExecute(deps.orm.em as EntityManager);
  const tiles = { url: deps.config.locatorWidget.tileUrl, attribution: deps.config.locatorWidget.tileAttribution };
  const service = new StorePagesService(execute, options.now, tiles);
  const csp = pageCsp(tiles.url);
  const contact = new StoreContactService(deps);
  const perFile = options.sitemapUrlsPerFile ?? SITEMAP_URLS_PER_FILE;
  const base = () => deps.config.notifications.publicUrl;
  const cached = (key: string, render: () => Promise<RenderedPage>) => (options.cache ? options.cache.get(key, render) : render());
  const assets = new Map<string, Promise<RenderedPage>>();
  const asset = (file: string, type: string) => {
    let page = assets.get(file);
    if (!page) {
      page = fs.promises.readFile(file, 'utf8').then((text) => rendered(200, text, type));
      assets.set(file, page);
    }
    return page;
  };
  const router = Router();

  router.get('/robots.txt', async (req, res) => {
    send(req, res, await cached(`robots ${base()}`, async () => rendered(200, robotsTxt(base()), 'text/plain; charset=utf-8')));
  });

  router.get('/stores/assets/contact.js', async (req, res) => {
    send(req, res, await asset(CONTACT_FILE, 'text/javascript; charset=utf-8'));
  });
  router.get('/stores/assets/altcha.js', async (req, res) => {
    send(req, res, await asset(ALTCHA_FILE, 'text/javascript; charset=utf-8'));
  });

  // The page's form asks its challenge here: a same-origin GET carries no `Origin`, which the API's challenge
  // requires; the page's origin is the public URL's, so the key must allow that origin.
  router.get('/stores/assets/challenge', async (req, res) => {
    res.set('Cache-Control', 'no-store');
    const key = typeof req.query.site_key === 'string' ? req.query.site_key : undefined;
    try {
      res.json(await contact.challenge(key, new URL(base()).origin));
    } catch (e) {
      if (!(e instanceof Refused)) throw e;
      res.status(403).json({ error: 'refused' });
    }
  });

  for (const lang of ['en', 'fr'] as Lang[]) {
    const prefix = lang === 'en' ? '' : `/${lang}`;
    router.get(`${prefix}/stores/:company`, async (req, res) => {
      const page = req.query.page === undefined ? 1 : typeof req.query.page === 'string' && /^[1-9]\d{0,6}$/.test(req.query.page) ? Number(req.query.page) : 0;
      const { company } = req.params as Record<string, string>;
      pageHeaders(res, csp);
      send(req, res, await cached(`${lang} d ${company} ${page} ${base()}`, () => service.directory(lang, base(), company, page)));
    });
    router.get(`${prefix}/stores/:company/:city/:store`, async (req, res) => {
      const { company, city, store } = req.params as Record<string, string>;
      pageHeaders(res, csp);
      send(req, res, await cached(`${lang} s ${company}/${city}/${store} ${base()}`, () => service.store(lang, base(), company, city, store)));
    });
  }

  router.get('/sitemap.xml', async (req, res) => {
    const files = await sitemapFiles(execute, perFile);
    const count = sitemapFileCount(files.reduce((n, f) => n + f.urls, 0), perFile);
    const list = Array.from({ length: count }, (_, i) => ({ n: i + 1, lastmod: files[i]?.lastmod ?? null }));
    send(req, res, rendered(200, sitemapIndexXml(base(), list), 'application/xml; charset=utf-8'));
  });

  // Written as it is read, a keyset page at a time: a file of 50,000 stores is never held whole.
  router.get('/sitemaps/:file', async (req, res) => {
    const m = /^stores-([1-9]\d{0,6})\.xml$/.exec(req.params.file);
    if (!m) {
      res.status(404).type('text/plain').send('Not found');
      return;
    }
    const range = sitemapFileRange(Number(m[1]), perFile);
    let from = await sitemapStart(execute, range.offset);
    if (!from && range.offset > 0) {
      res.status(404).type('text/plain').send('Not found');
      return;
    }
    res.status(200).type('application/xml; charset=utf-8').set('Cache-Control', `public, max-age=${PAGE_MAX_AGE_S}, stale-while-revalidate=${PAGE_STALE_S}`);
    res.write(SITEMAP_HEAD);
    const root = xmlEscape(base());
    let left = range.limit;
    while (from && left > 0) {
      const rows = await sitemapPage(execute, from, Math.min(SITEMAP_CHUNK, left) + 1);
      const page = rows.slice(0, Math.min(SITEMAP_CHUNK, left));
      let chunk = '';
      for (const r of page) chunk += sitemapUrlXml(root, r.path, r.lastmod);
      if (!res.write(chunk)) await new Promise((resolve) => res.once('drain', resolve));
      left -= page.length;
      from = rows.length > page.length ? rows[page.length].crl_id : null;
    }
    res.end(SITEMAP_TAIL);
  });

  return router;
}
