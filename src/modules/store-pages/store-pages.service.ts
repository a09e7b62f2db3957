import { createHash } from 'node:crypto';
import type { Execute } from '../../db/sql';
import { localDate, resolveZone } from '../store-locator/store-locator.hours';
import type { RenderedPage } from './store-pages.cache';
import { companyBySlug, directoryPage, resolvePath, storePage } from './store-pages.repository';
import { directoryHtml, directoryPath, notFoundHtml, readFrom, storePageHtml, storePath } from './store-pages.render';
import type { Lang } from './store-pages.words';

/** Stores per directory page: a company of 100,000 stores is 334 pages of about 25 KB. */
export const DIRECTORY_PAGE_SIZE = 300;
/** A slug as the pages write them; anything else is a 404 without a database read. */
const SLUG = /^[a-z0-9](?:[a-z0-9-]{0,78}[a-z0-9])?$/;

export const etagOf = (body: Buffer) => `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;

/** A rendered answer of `status` with this body (`lastModified` now, to the second). */
export function rendered(status: number, body: string, contentType = 'text/html; charset=utf-8', location?: string): RenderedPage {
  const bytes = Buffer.from(body, 'utf8');
  const now = new Date();
  now.setMilliseconds(0);
  return { status, body: bytes, contentType, etag: etagOf(bytes), lastModified: now, ...(location ? { location } : {}) };
}

const redirect = (location: string) => rendered(301, '', 'text/plain; charset=utf-8', location);
const notFound = (lang: Lang) => rendered(404, notFoundHtml(lang));

/** The store pages and company directories (docs/store-pages.md): one answer per request, ready to cache. */
export class StorePagesService {
  constructor(
    private readonly execute: Execute,
    private readonly now: () => Date = () => new Date(),
    /** The map's tiles (`LOCATOR_TILE_URL`); none: no map. */
    private readonly tiles?: { url: string; attribution: string },
  ) {}

  /** A store's page; an older slug of the company or the store is a 301 to the current one; an unlisted store a 404. */
  async store(lang: Lang, base: string, companySlug: string, citySlug: string, storeSlug: string): Promise<RenderedPage> {
    if (![companySlug, citySlug, storeSlug].every((s) => SLUG.test(s))) return notFound(lang);
    const found = await resolvePath(this.execute, companySlug, citySlug, storeSlug);
    if (!found?.crl_id || !found.listed) return notFound(lang);
    if (found.company_slug !== companySlug || found.city_slug !== citySlug || found.store_slug !== storeSlug) {
      return redirect(storePath(lang, found.company_slug, found.city_slug!, found.store_slug!));
    }
    // Exceptions from the day before the earliest "today" on Earth: the row's zone decides which is today.
    const at = this.now();
    const page = await storePage(this.execute, found.crl_id, readFrom(localDate('Etc/GMT+12', at)), new URL(base).origin);
    if (!page) return notFound(lang);
    const coordinates = page.latitude !== null && page.longitude !== null ? { latitude: Number(page.latitude), longitude: Number(page.longitude) } : null;
    const today = localDate(resolveZone([page.crl_timezone, page.rl_timezone], coordinates), at);
    return rendered(200, storePageHtml(page, { lang, base, today, tiles: this.tiles }));
  }

  /** A company's directory page (`page` from 1); an older company slug is a 301; a page past the end a 404. */
  async directory(lang: Lang, base: string, companySlug: string, page: number): Promise<RenderedPage> {
    if (!SLUG.test(companySlug) || !Number.isSafeInteger(page) || page < 1) return notFound(lang);
    const company = await companyBySlug(this.execute, companySlug);
    if (!company) return notFound(lang);
    if (company.company_slug !== companySlug) return redirect(directoryPath(lang, company.company_slug, page));
    const pages = Math.max(1, Math.ceil(company.stores / DIRECTORY_PAGE_SIZE));
    if (page > pages) return notFound(lang);
    const rows = await directoryPage(this.execute, company.company_id, DIRECTORY_PAGE_SIZE, (page - 1) * DIRECTORY_PAGE_SIZE);
    return rendered(
      200,
      directoryHtml(rows, { lang, base, company: { name: company.company_name, slug: company.company_slug, stores: company.stores }, page, pages }),
    );
  }
}
