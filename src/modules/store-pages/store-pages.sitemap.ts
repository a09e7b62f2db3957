/** At most this many URLs in one sitemap file (the sitemaps.org limit). */
export const SITEMAP_URLS_PER_FILE = 50_000;

const xmlEscape = (s: string) => s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' })[c]!);

/** W3C datetime of a stored timestamp, to the second. */
export const lastmod = (at: Date | string) => new Date(at).toISOString().replace(/\.\d{3}Z$/, 'Z');

/** How many files `urls` listed stores take at `perFile` per file (at least one: an empty index is still valid). */
export function sitemapFileCount(urls: number, perFile: number): number {
  return Math.max(1, Math.ceil(urls / perFile));
}

/** The offset of the first store of file `n` (1-based) and how many it holds at most. */
export function sitemapFileRange(n: number, perFile: number): { offset: number; limit: number } {
  return { offset: (n - 1) * perFile, limit: perFile };
}

/** The sitemap index: one `<sitemap>` per file with its latest change. */
export function sitemapIndexXml(base: string, files: Array<{ n: number; lastmod: Date | string | null }>): string {
  const items = files.map(
    (f) => `<sitemap><loc>${xmlEscape(`${base}/sitemaps/stores-${f.n}.xml`)}</loc>${f.lastmod ? `<lastmod>${lastmod(f.lastmod)}</lastmod>` : ''}</sitemap>`,
  );
  return `<?xml version="1.0" encoding="UTF-8"?>\n<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n${items.join('\n')}\n</sitemapindex>\n`;
}

export const SITEMAP_HEAD = `<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n`;
export const SITEMAP_TAIL = `</urlset>\n`;

/**
 * One store's `<url>`: its English page (each page names its French alternate itself). `root` is the
 * escaped base URL; `path` is made of slugs, which need no escaping.
 */
export function sitemapUrlXml(root: string, path: string, changed: string): string {
  return `<url><loc>${root}${path}</loc><lastmod>${changed}</lastmod></url>\n`;
}

export { xmlEscape };

/** robots.txt: the store pages are open to crawlers; the API and tools are not pages. */
export function robotsTxt(base: string): string {
  return `User-agent: *\nAllow: /stores/\nAllow: /fr/stores/\nDisallow: /v1/\nDisallow: /graphql\nDisallow: /stores/assets/challenge\n\nSitemap: ${base}/sitemap.xml\n`;
}
