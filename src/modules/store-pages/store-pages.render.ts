import { addressString, directionsUrl, formatPhone, fullName } from '../store-locator/store-locator.format';
import { addDays, hoursOn, type HourExceptionRow, type HourRow } from '../store-locator/store-locator.hours';
import { hhmm, localBusiness, scriptJson } from './store-pages.jsonld';
import type { DirectoryRow, StorePageRow } from './store-pages.repository';
import { LANGS, langPrefix, WORDS, type Lang, type Words } from './store-pages.words';

export const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
const enc = encodeURIComponent;

/** The consent text's version sent with the page's form (bump it when the text changes). */
export const CONSENT_VERSION = 'store-page-2026-12';
/** The map's zoom (tiles of 256 px shown at 128 CSS px: sharp at a device pixel ratio of 2, the scale of zoom 16). */
const MAP_ZOOM = 17;
const MAP_TILE_PX = 128;
/** The map's box: as wide as the page allows up to this, this high. */
const MAP_MAX_WIDTH = 480;
const MAP_HEIGHT = 200;

/** The one inline style of every page (small: nothing to fetch before the first paint). */
export const PAGE_STYLE = `
body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,Arial,sans-serif;color:#1f2328;background:#fff}
header,main,footer{max-width:760px;margin:0 auto;padding:12px 16px}
header{display:flex;justify-content:space-between;gap:12px;flex-wrap:wrap;border-bottom:1px solid #d0d7de}
a{color:#0646a6}
nav a,header a,footer a,.links a{display:inline-block;padding:12px 4px;min-height:24px}
h1{font-size:1.7rem;line-height:1.25;margin:16px 0 8px}
h2{font-size:1.25rem;margin:24px 0 8px}
h3{font-size:1.05rem;margin:16px 0 4px}
.notice{background:#fff4e5;border-left:4px solid #9a4d00;padding:8px 12px;font-weight:600;color:#5c2e00}
table{border-collapse:collapse}
th,td{text-align:left;padding:4px 16px 4px 0}
ul{padding-left:20px}
li{margin:4px 0}
form{display:grid;gap:12px;max-width:480px}
label{font-weight:600}
input,textarea{font:inherit;padding:10px;border:1px solid #6e7781;border-radius:6px;width:100%;box-sizing:border-box}
.check{display:flex;gap:10px;align-items:flex-start;font-weight:400}
.map{margin:12px 0}
.tiles{position:relative;overflow:hidden;height:${MAP_HEIGHT}px;max-width:${MAP_MAX_WIDTH}px;background:#e8eef3;border-radius:6px}
.tiles img{position:absolute;max-width:none}
.pin{position:absolute;left:50%;top:50%;width:14px;height:14px;margin:-7px 0 0 -7px;border-radius:50%;background:#0646a6;border:3px solid #fff;box-shadow:0 0 0 1px #0646a6}
figcaption{font-size:.8rem;color:#57606a}
.check input{width:24px;height:24px;flex:none;margin:0}
fieldset{border:1px solid #d0d7de;border-radius:6px;padding:8px 12px}
button{font:inherit;font-weight:600;padding:12px 20px;border:0;border-radius:6px;background:#0646a6;color:#fff;cursor:pointer;min-height:48px}
.hp{position:absolute;left:-10000px;width:1px;height:1px;overflow:hidden}
[data-kind=error]{color:#a40e26}
[data-kind=done]{color:#116329}
.muted{color:#57606a}
`;
/** A map pin, inline: the browser asks for no `/favicon.ico`. */
export const FAVICON =
  "data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 24 24'%3E%3Cpath fill='%230646a6' d='M12 2a7 7 0 0 0-7 7c0 5.25 7 13 7 13s7-7.75 7-13a7 7 0 0 0-7-7Z'/%3E%3C/svg%3E";

/** The path of a store's page in a language. */
export const storePath = (lang: Lang, company: string, city: string, store: string) => `${langPrefix(lang)}/stores/${enc(company)}/${enc(city)}/${enc(store)}`;
/** The path of a company's directory in a language (page 1 without `?page`). */
export const directoryPath = (lang: Lang, company: string, page = 1) => `${langPrefix(lang)}/stores/${enc(company)}${page > 1 ? `?page=${page}` : ''}`;

interface Head {
  lang: Lang;
  title: string;
  description: string;
  /** Absolute URL of this page per language (canonical is the page's own). */
  urls: Record<Lang, string>;
  ogType: string;
  jsonLd?: string;
  /** Other pages' tags (prev/next). */
  extra?: string;
}

function document(head: Head, body: string, scripts = ''): string {
  const w = WORDS[head.lang];
  const alternates = LANGS.map((l) => `<link rel="alternate" hreflang="${l}" href="${escapeHtml(head.urls[l])}">`).join('\n');
  const other = LANGS.find((l) => l !== head.lang)!;
  return `<!doctype html>
<html lang="${head.lang}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(head.title)}</title>
<meta name="description" content="${escapeHtml(head.description)}">
<link rel="canonical" href="${escapeHtml(head.urls[head.lang])}">
${alternates}
<link rel="alternate" hreflang="x-default" href="${escapeHtml(head.urls.en)}">
${head.extra ?? ''}<meta property="og:type" content="${head.ogType}">
<meta property="og:title" content="${escapeHtml(head.title)}">
<meta property="og:description" content="${escapeHtml(head.description)}">
<meta property="og:url" content="${escapeHtml(head.urls[head.lang])}">
<meta property="og:locale" content="${w.locale}">
<meta property="og:locale:alternate" content="${WORDS[other].locale}">
<link rel="icon" href="${FAVICON}">
<style>${PAGE_STYLE}</style>
${head.jsonLd ? `<script type="application/ld+json">${head.jsonLd}</script>\n` : ''}</head>
<body>
${body}
<footer><a href="${escapeHtml(head.urls[other])}" hreflang="${other}" lang="${other}" aria-label="${escapeHtml(w.otherLangLabel)}">${w.otherLang}</a></footer>
${scripts}</body>
</html>
`;
}

const spanText = (spans: Array<{ open_at_hour: number; open_at_minute: number; close_at_hour: number; close_at_minute: number }>, w: Words) =>
  spans.length ? spans.map((s) => `${hhmm(s.open_at_hour, s.open_at_minute)}–${hhmm(s.close_at_hour, s.close_at_minute)}`).join(', ') : w.closed;

function weekTable(hours: HourRow[], w: Words): string {
  const order = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'];
  const rows = order.map((day, i) => {
    const row = hours.find((h) => h.day === day);
    const text = row?.open && row.open_at_hour !== null && row.close_at_hour !== null ? `${hhmm(row.open_at_hour, row.open_at_minute)}–${hhmm(row.close_at_hour, row.close_at_minute)}` : w.closed;
    return `<tr><th scope="row">${w.days[i]}</th><td>${text}</td></tr>`;
  });
  return `<table>\n${rows.join('\n')}\n</table>`;
}

function exceptionList(exceptions: HourExceptionRow[], w: Words): string {
  if (!exceptions.length) return '';
  const items = exceptions.map((e) => {
    const when = e.starts_on === e.ends_on ? w.date(e.starts_on) : `${w.date(e.starts_on)} – ${w.date(e.ends_on)}`;
    const what = e.closed ? w.closed : spanText(e.hours, w);
    return `<li>${escapeHtml(when)}: ${escapeHtml(what)}${e.label ? ` (${escapeHtml(e.label)})` : ''}</li>`;
  });
  return `<h3>${w.specialHours}</h3>\n<ul>\n${items.join('\n')}\n</ul>`;
}

/** Everything a store page is made from besides its row. */
export interface StorePageContext {
  lang: Lang;
  /** The public base URL (no trailing slash). */
  base: string;
  /** The store's local date today (`YYYY-MM-DD`). */
  today: string;
  /** The map's tiles (`LOCATOR_TILE_URL`, `{z}/{x}/{y}`) and their attribution (operator's HTML); no map without. */
  tiles?: { url: string; attribution: string };
}


/**
 * A static map of the store's point: the few tiles around it as lazy images (nothing fetched before the
 * first paint, no script), positioned from the middle of the box so any width up to MAP_MAX_WIDTH stays
 * centred on the pin.
 */
export function mapHtml(point: { latitude: number; longitude: number }, tiles: { url: string; attribution: string }, label: string): string {
  const n = 2 ** MAP_ZOOM;
  const lat = (Math.max(-85.05, Math.min(85.05, point.latitude)) * Math.PI) / 180;
  // The point in tile units (Web Mercator), then in CSS pixels of the whole zoom level.
  const px = (((point.longitude + 180) / 360) * n) * MAP_TILE_PX;
  const py = (((1 - Math.log(Math.tan(lat) + 1 / Math.cos(lat)) / Math.PI) / 2) * n) * MAP_TILE_PX;
  const images: string[] = [];
  for (let ty = Math.floor((py - MAP_HEIGHT / 2) / MAP_TILE_PX); ty * MAP_TILE_PX < py + MAP_HEIGHT / 2; ty++) {
    for (let tx = Math.floor((px - MAP_MAX_WIDTH / 2) / MAP_TILE_PX); tx * MAP_TILE_PX < px + MAP_MAX_WIDTH / 2; tx++) {
      if (ty < 0 || ty >= n) continue;
      const src = tiles.url.replace('{z}', String(MAP_ZOOM)).replace('{x}', String(((tx % n) + n) % n)).replace('{y}', String(ty));
      const left = Math.round(tx * MAP_TILE_PX - px);
      const top = Math.round(ty * MAP_TILE_PX - py + MAP_HEIGHT / 2);
      images.push(`<img src="${escapeHtml(src)}" alt="" width="${MAP_TILE_PX}" height="${MAP_TILE_PX}" loading="lazy" decoding="async" style="left:calc(50% + ${left}px);top:${top}px">`);
    }
  }
  return `<figure class="map"><div class="tiles" role="img" aria-label="${escapeHtml(label)}">${images.join('')}<span class="pin"></span></div>
<figcaption>${tiles.attribution}</figcaption></figure>`;
}

/** A store page's HTML. */
export function storePageHtml(s: StorePageRow, c: StorePageContext): string {
  const w = WORDS[c.lang];
  const name = fullName(s.retailer_name, s.name) ?? s.company_name;
  const urls = Object.fromEntries(LANGS.map((l) => [l, `${c.base}${storePath(l, s.company_slug, s.city_slug, s.store_slug)}`])) as Record<Lang, string>;
  const latitude = s.latitude === null ? null : Number(s.latitude);
  const longitude = s.longitude === null ? null : Number(s.longitude);
  const coordinates = latitude !== null && longitude !== null ? { latitude, longitude } : null;
  const line = addressString(s);
  const directions = directionsUrl(coordinates, line || null, s.place_id);
  const map = coordinates ? `https://www.openstreetmap.org/?mlat=${latitude}&mlon=${longitude}#map=17/${latitude}/${longitude}` : null;
  const phone = s.phone_number ? (s.formatted_international ?? formatPhone(s.phone_number, s.country_code)) : null;
  // What the page lists: exceptions still to come (or today's), in the order they happen.
  const exceptions = s.exceptions.filter((e) => e.ends_on >= c.today);
  const day = hoursOn(s.hours, s.exceptions, c.today);
  const notice = day.exception ? `<p class="notice" id="today">${escapeHtml(day.closed ? w.closedToday(day.label) : w.specialToday(spanText(day.hours, w), day.label))}</p>\n` : '';
  const description = w.storeDescription(name, line, s.company_name);
  const jsonLd = scriptJson(
    localBusiness({
      url: urls[c.lang],
      name,
      company: s.company_name,
      description,
      telephone: phone,
      email: s.email,
      website: s.website,
      street: [s.street_line_one, s.street_line_two].filter(Boolean).join(', ') || null,
      city: s.city,
      region: s.province,
      postalCode: s.postal_code,
      country: s.country,
      latitude,
      longitude,
      map,
      hours: s.hours,
      exceptions,
    }),
  );
  const contactLines = [
    phone ? `<li>${w.phone}: <a href="tel:${escapeHtml(s.phone_number!)}">${escapeHtml(phone)}</a></li>` : '',
    s.email ? `<li>${w.email}: <a href="mailto:${escapeHtml(s.email)}">${escapeHtml(s.email)}</a></li>` : '',
    s.website && /^https?:\/\//i.test(s.website) ? `<li>${w.website}: <a href="${escapeHtml(s.website)}" rel="noopener">${escapeHtml(s.website.replace(/^https?:\/\//i, ''))}</a></li>` : '',
  ].filter(Boolean);
  const products = s.products.length
    ? `<section aria-labelledby="products"><h2 id="products">${w.products}</h2>
<ul>
${s.products.map((p) => `<li>${escapeHtml(p.name)} <span class="muted">(${p.stocked ? w.inStock : w.available})</span></li>`).join('\n')}
</ul>${s.products.length >= 50 ? `\n<p class="muted">${w.moreProducts}</p>` : ''}
</section>`
    : '';
  const body = `<header>
<nav aria-label="${escapeHtml(w.breadcrumb)}"><a href="${escapeHtml(directoryPath(c.lang, s.company_slug))}">${escapeHtml(w.storesOf(s.company_name))}</a></nav>
</header>
<main>
<h1>${escapeHtml(name)}</h1>
${notice}${s.store_type ? `<p class="muted">${escapeHtml(s.store_type)}</p>\n` : ''}<section aria-labelledby="address"><h2 id="address">${w.address}</h2>
<address>${[s.street_line_one, s.street_line_two, [s.postal_code, s.city].filter(Boolean).join(' '), s.province, s.country].filter((x) => x && String(x).trim()).map((x) => escapeHtml(String(x))).join('<br>')}</address>
<p class="links">${directions ? `<a href="${escapeHtml(directions)}" rel="noopener">${w.directions}</a>` : ''}${map ? ` · <a href="${escapeHtml(map)}" rel="noopener">${w.map}</a>` : ''}</p>
${coordinates && c.tiles ? mapHtml(coordinates, c.tiles, w.mapOf(name)) : ''}</section>
${contactLines.length ? `<section aria-labelledby="contact-details"><h2 id="contact-details">${w.contactDetails}</h2>\n<ul>\n${contactLines.join('\n')}\n</ul>\n</section>\n` : ''}<section aria-labelledby="hours"><h2 id="hours">${w.hours}</h2>
${weekTable(s.hours, w)}
${exceptionList(exceptions, w)}
</section>
${products}
${contactForm(s, c, w)}
</main>`;
  return document({ lang: c.lang, title: w.storeTitle(name, s.city, s.company_name), description, urls, ogType: 'business.business', jsonLd }, body, s.site_key ? '<script src="/stores/assets/contact.js" defer></script>\n' : '');
}

function contactForm(s: StorePageRow, c: StorePageContext, w: Words): string {
  if (!s.site_key) return `<section aria-labelledby="contact"><h2 id="contact">${w.contact}</h2>\n<p>${w.noForm}</p>\n</section>`;
  const data: Record<string, string> = {
    action: `${c.base}/v1/store_locator/${enc(s.id)}/leads`,
    challenge: `/stores/assets/challenge?site_key=${enc(s.site_key)}`,
    altcha: '/stores/assets/altcha.js',
    'site-key': s.site_key,
    'consent-text': w.consentText,
    'consent-version': CONSENT_VERSION,
    missing: w.missing,
    'consent-missing': w.consentMissing,
    sending: w.sending,
    done: w.done,
    failed: w.failed,
    busy: w.busy,
  };
  const attrs = Object.entries(data)
    .map(([k, v]) => ` data-${k}="${escapeHtml(v)}"`)
    .join('');
  const products = s.products.slice(0, 20);
  return `<section aria-labelledby="contact"><h2 id="contact">${w.contact}</h2>
<form id="contact-form" novalidate${attrs}>
<label for="f-name">${w.contactName}</label>
<input id="f-name" name="name" autocomplete="name" required maxlength="200">
<label for="f-email">${w.contactEmail}</label>
<input id="f-email" name="email" type="email" autocomplete="email" maxlength="254" aria-describedby="f-hint">
<label for="f-phone">${w.contactPhone}</label>
<input id="f-phone" name="phone" type="tel" autocomplete="tel" maxlength="40" aria-describedby="f-hint">
<p id="f-hint" class="muted">${w.contactHint}</p>
<label for="f-message">${w.contactMessage}</label>
<textarea id="f-message" name="message" rows="4" maxlength="5000"></textarea>
${products.length ? `<fieldset><legend>${w.contactProducts}</legend>\n${products.map((p, i) => `<label class="check" for="f-p${i}"><input type="checkbox" id="f-p${i}" name="product_ids" value="${escapeHtml(p.id)}">${escapeHtml(p.name)}</label>`).join('\n')}\n</fieldset>\n` : ''}<label class="check" for="f-consent"><input type="checkbox" id="f-consent" name="consent" required>${w.consentText}</label>
<div class="hp" aria-hidden="true"><label for="f-website">Website</label><input id="f-website" name="website" tabindex="-1" autocomplete="off"></div>
<button type="submit">${w.contactSend}</button>
<p id="contact-status" role="status" aria-live="polite"></p>
</form>
</section>`;
}

/** A company directory page. */
export interface DirectoryContext {
  lang: Lang;
  base: string;
  company: { name: string; slug: string; stores: number };
  page: number;
  pages: number;
}

/** A directory page's HTML: its stores grouped by country, then city. */
export function directoryHtml(rows: DirectoryRow[], c: DirectoryContext): string {
  const w = WORDS[c.lang];
  const urls = Object.fromEntries(LANGS.map((l) => [l, `${c.base}${directoryPath(l, c.company.slug, c.page)}`])) as Record<Lang, string>;
  const parts: string[] = [];
  let country: string | null | undefined;
  let city: string | undefined;
  for (const r of rows) {
    if (r.country !== country) {
      if (city !== undefined) parts.push('</ul>');
      city = undefined;
      country = r.country;
      parts.push(`<h2>${escapeHtml(r.country ?? '—')}</h2>`);
    }
    if (r.city_slug !== city) {
      if (city !== undefined) parts.push('</ul>');
      city = r.city_slug;
      parts.push(`<h3>${escapeHtml(r.city ?? r.city_slug)}</h3>\n<ul>`);
    }
    parts.push(`<li><a href="${escapeHtml(storePath(c.lang, c.company.slug, r.city_slug, r.store_slug))}">${escapeHtml(r.name ?? r.store_slug)}</a></li>`);
  }
  if (city !== undefined) parts.push('</ul>');
  const pager = c.pages > 1
    ? `<nav aria-label="${escapeHtml(w.page(c.page, c.pages))}" class="links"><span>${w.page(c.page, c.pages)}</span>${c.page > 1 ? ` <a href="${escapeHtml(directoryPath(c.lang, c.company.slug, c.page - 1))}" rel="prev">${w.previous}</a>` : ''}${c.page < c.pages ? ` <a href="${escapeHtml(directoryPath(c.lang, c.company.slug, c.page + 1))}" rel="next">${w.next}</a>` : ''}</nav>`
    : '';
  const extra = [
    c.page > 1 ? `<link rel="prev" href="${escapeHtml(`${c.base}${directoryPath(c.lang, c.company.slug, c.page - 1)}`)}">` : '',
    c.page < c.pages ? `<link rel="next" href="${escapeHtml(`${c.base}${directoryPath(c.lang, c.company.slug, c.page + 1)}`)}">` : '',
  ].filter(Boolean).map((l) => `${l}\n`).join('');
  const body = `<main>
<h1>${escapeHtml(w.storesOf(c.company.name))}</h1>
<p>${w.storeCount(c.company.stores)}</p>
${parts.join('\n')}
${pager}
</main>`;
  return document({ lang: c.lang, title: w.directoryTitle(c.company.name), description: w.directoryDescription(c.company.name, c.company.stores), urls, ogType: 'website', extra }, body);
}

/** The 404 page of an unknown, unlisted or malformed store or company path. */
export function notFoundHtml(lang: Lang): string {
  const w = WORDS[lang];
  return `<!doctype html>
<html lang="${lang}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${w.notFoundTitle}</title>
<link rel="icon" href="${FAVICON}">
<style>${PAGE_STYLE}</style>
</head>
<body>
<main>
<h1>${w.notFoundTitle}</h1>
<p>${w.notFound}</p>
</main>
</body>
</html>
`;
}

/** The day before the store's today: the first date whose exceptions a page reads (today's is among them). */
export const readFrom = (today: string) => addDays(today, -1);
