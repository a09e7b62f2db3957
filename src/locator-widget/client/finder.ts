import * as L from 'leaflet';
import leafletCss from 'leaflet/dist/leaflet.css';
import css from './styles.css';
import { MESSAGES, type Lang, type Messages } from './i18n';
import { Clusters, type Pin } from './clusters';
import { contactButton } from './contact';

/** What a host element's data attributes (and the server's configuration) set. */
export interface FinderOptions {
  company: string;
  /** The public API's base, e.g. `https://leadnet.example/v1`. */
  api: string;
  color: string | null;
  radius: number;
  units: 'mi' | 'km';
  lang: Lang;
  tileUrl: string;
  tileAttribution: string;
  /** The company's publishable site key (`data-site-key`): each store gets a contact form. Null: none. */
  siteKey: string | null;
}

interface Hour {
  day: string;
  open: boolean;
  open_at_hour: number | null;
  open_at_minute: number | null;
  close_at_hour: number | null;
  close_at_minute: number | null;
}

interface Store {
  id: string;
  name: string | null;
  full_name: string | null;
  store_type: string | null;
  address: { string: string; latitude: number | null; longitude: number | null } | null;
  phone_number: { phone_number: string; formatted: string } | null;
  retailer_location_hours: Hour[];
  retailer_location_products: Array<{ product_id: string; name: string }>;
  open_now: boolean;
  local_weekday: string;
  directions_url: string | null;
  /** The store's day today with the dated exception in force (holidays, special hours); absent from an older service. */
  hours_today?: {
    closed: boolean;
    hours: Array<{ open_at_hour: number; open_at_minute: number; close_at_hour: number; close_at_minute: number }>;
    label: string | null;
    exception: boolean;
  };
  distance?: number;
}

interface Page {
  results: Store[];
  meta: {
    total: number;
    distance_unit: string;
    origin: { latitude: number; longitude: number };
    aggs: { store_type: { buckets: Array<{ key: string; doc_count: number }> } };
  };
}

type Place = { kind: 'text'; text: string } | { kind: 'point'; latitude: number; longitude: number };

// Leaflet leaves no global (`window.L`, `_leaflet_events`): its source is patched when bundled (../bundle.ts).

const RADII = [5, 10, 25, 50, 100, 250, 500];
const PAGE_SIZE = 25;
/** Markers are 28 px: closer than that, they overlap and are clustered. */
const CLUSTER_RADIUS = 30;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
let instances = 0;

/** A link's address only when it is a web address (never `javascript:` or `data:`), whatever the API sent. */
export function webUrl(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  try {
    const url = new URL(value);
    return url.protocol === 'https:' || url.protocol === 'http:' ? url.toString() : null;
  } catch {
    return null;
  }
}

/** A `tel:` link of a phone number: its digits and a leading `+` only. */
export function telUrl(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  const digits = value.replace(/[^\d+]/g, '').replace(/(?!^)\+/g, '');
  return /\d{3,}/.test(digits) ? `tel:${digits}` : null;
}

/**
 * The finder's styles as stylesheets built by script (`adoptedStyleSheets`), shared by every finder of
 * the page: a page whose Content Security Policy forbids inline styles still shows the finder. Browsers
 * without them get `<style>` elements.
 */
let sheets: CSSStyleSheet[] | null | undefined;
function adoptStyles(root: ShadowRoot): void {
  if (sheets === undefined) {
    try {
      sheets = [leafletCss, css].map((text) => {
        const sheet = new CSSStyleSheet();
        sheet.replaceSync(text);
        return sheet;
      });
    } catch {
      sheets = null;
    }
  }
  if (sheets && 'adoptedStyleSheets' in root) root.adoptedStyleSheets = sheets;
  else root.append(el('style', {}, leafletCss), el('style', {}, css));
}

/** `el('p', { class: 'x' }, 'text', child)`: DOM without HTML strings, so store data is never markup. */
function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Record<string, string | boolean | null | undefined> = {},
  ...children: Array<Node | string | null | undefined | false>
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === true) node.setAttribute(k, '');
    else if (typeof v === 'string') node.setAttribute(k, v);
  }
  for (const c of children) if (c !== null && c !== undefined && c !== false) node.append(c);
  return node;
}

/** Black or white, whichever reads better on `color` (WCAG relative luminance). */
function textOn(color: string, probe: HTMLElement): string {
  probe.style.color = color;
  const rgb = getComputedStyle(probe).color.match(/\d+(\.\d+)?/g)?.slice(0, 3).map(Number) ?? [0, 0, 0];
  const lin = rgb.map((v) => {
    const c = v / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  });
  const luminance = 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2];
  return (luminance + 0.05) / 0.05 > 1.05 / (luminance + 0.05) ? '#1f2328' : '#ffffff';
}

/** The store finder in `host`'s shadow root: search form, live status, numbered list, map in step. */
export class Finder {
  private readonly t: Messages;
  private readonly root: ShadowRoot;
  private readonly ids: string;
  private readonly form: HTMLFormElement;
  private readonly query: HTMLInputElement;
  private readonly radius: HTMLSelectElement;
  private readonly storeType: HTMLSelectElement;
  private readonly product: HTMLSelectElement;
  private readonly openNow: HTMLInputElement;
  private readonly status: HTMLParagraphElement;
  private readonly list: HTMLOListElement;
  private readonly mapEl: HTMLDivElement;
  private map!: L.Map;
  private clusters!: Clusters;
  private markers = new Map<string, L.Marker>();
  private selected: string | null = null;
  private storeNumbers = new Map<string, string>();
  private originMarker: L.Marker | null = null;
  /** What the map last showed, fitted again when the container changes size (layout settling, rotation). */
  private view: L.LatLngExpression[] = [];
  private place: Place | null = null;
  private inflight: AbortController | null = null;
  private readonly numbers: Intl.NumberFormat;
  private readonly times: Intl.DateTimeFormat;

  constructor(
    private readonly host: HTMLElement,
    private readonly options: FinderOptions,
  ) {
    this.t = MESSAGES[options.lang];
    this.ids = `ln${++instances}`;
    this.numbers = new Intl.NumberFormat(options.lang === 'fr' ? 'fr-CA' : 'en-US', { maximumFractionDigits: 1 });
    this.times = new Intl.DateTimeFormat(options.lang === 'fr' ? 'fr-CA' : 'en-US', { hour: 'numeric', minute: '2-digit', timeZone: 'UTC' });
    this.root = host.shadowRoot ?? host.attachShadow({ mode: 'open' });
    this.root.replaceChildren();
    const t = this.t;
    const id = (s: string) => `${this.ids}-${s}`;

    this.query = el('input', { id: id('q'), type: 'search', name: 'address', autocomplete: 'postal-code', placeholder: t.searchPlaceholder, required: true });
    this.radius = el('select', { id: id('radius'), name: 'radius' });
    const radii = RADII.includes(options.radius) ? RADII : [...RADII, options.radius].sort((a, b) => a - b);
    for (const r of radii) this.radius.append(el('option', { value: String(r), selected: r === options.radius }, `${this.numbers.format(r)} ${options.units}`));
    this.storeType = el('select', { id: id('type'), name: 'store_type' }, el('option', { value: '' }, t.allTypes));
    this.product = el('select', { id: id('product'), name: 'product' }, el('option', { value: '' }, t.allProducts));
    this.openNow = el('input', { id: id('open'), type: 'checkbox', name: 'open_now' });
    const locate = el('button', { type: 'button', class: 'ln-button ln-button--secondary', 'data-action': 'locate' });
    locate.innerHTML =
      '<svg width="16" height="16" viewBox="0 0 24 24" aria-hidden="true" focusable="false"><path fill="currentColor" d="M12 8a4 4 0 1 0 0 8 4 4 0 0 0 0-8Zm9 3h-2.07A7 7 0 0 0 13 5.07V3h-2v2.07A7 7 0 0 0 5.07 11H3v2h2.07A7 7 0 0 0 11 18.93V21h2v-2.07A7 7 0 0 0 18.93 13H21v-2Zm-9 6a5 5 0 1 1 0-10 5 5 0 0 1 0 10Z"/></svg>';
    locate.append(t.useLocation);

    this.form = el(
      'form',
      { class: 'ln-search', role: 'search', 'aria-label': t.region, novalidate: true },
      el(
        'div',
        {},
        el('label', { class: 'ln-label', for: id('q') }, t.searchLabel),
        el('div', { class: 'ln-query' }, this.query, el('button', { type: 'submit', class: 'ln-button' }, t.search), locate),
      ),
      el(
        'div',
        { class: 'ln-filters' },
        el('label', { for: id('radius') }, t.radius, this.radius),
        el('label', { for: id('type') }, t.storeType, this.storeType),
        el('label', { for: id('product') }, t.product, this.product),
        el('label', { class: 'ln-check', for: id('open') }, this.openNow, t.openNow),
      ),
    );
    this.status = el('p', { class: 'ln-status', role: 'status', 'aria-live': 'polite', 'aria-atomic': 'true' }, t.intro);
    this.list = el('ol', { class: 'ln-results', 'aria-label': t.results });
    this.mapEl = el('div', { class: 'ln-map', role: 'region', 'aria-label': t.map });
    const finder = el(
      'div',
      { class: 'ln-finder', lang: options.lang },
      this.form,
      this.status,
      el('div', { class: 'ln-body' }, el('div', { class: 'ln-list-wrap' }, this.list), this.mapEl),
    );
    adoptStyles(this.root);
    this.root.append(finder);
    if (options.color && CSS.supports('color', options.color)) {
      finder.style.setProperty('--ln-brand', options.color);
      finder.style.setProperty('--ln-on-brand', textOn(options.color, this.status));
      this.status.style.color = '';
    }

    this.form.addEventListener('submit', (e) => {
      e.preventDefault();
      const text = this.query.value.trim();
      if (!text) {
        this.query.focus();
        return;
      }
      this.place = { kind: 'text', text };
      void this.search();
    });
    locate.addEventListener('click', () => this.locate());
    for (const filter of [this.radius, this.storeType, this.product, this.openNow]) {
      filter.addEventListener('change', () => void (this.place ? this.search() : this.overview()));
    }
    this.initMap();
    if (!UUID.test(options.company)) {
      this.unknownCompany();
      return;
    }
    void this.overview();
  }

  /** A `data-company` that is no company: said in the finder, and to the site's developer in the console. */
  private unknownCompany(): void {
    this.say(this.t.unavailable, true);
    this.form.querySelectorAll<HTMLInputElement | HTMLButtonElement | HTMLSelectElement>('input, button, select').forEach((c) => (c.disabled = true));
    console.error(`leadnet locator: no store finder for data-company="${this.options.company}"`);
  }

  private initMap(): void {
    // trackResize off: the ResizeObserver below follows the container (no listener on the page's window).
    this.map = L.map(this.mapEl, { zoomControl: true, scrollWheelZoom: false, keyboard: true, trackResize: false, maxZoom: 18 }).setView([45, -100], 3);
    L.tileLayer(this.options.tileUrl, { attribution: this.options.tileAttribution, maxZoom: 18 }).addTo(this.map);
    this.clusters = new Clusters(this.map, {
      radius: CLUSTER_RADIUS,
      label: (pins) => this.t.cluster(pins.map((p) => this.numberOf(p.id))),
    });
    new ResizeObserver(() => {
      this.map.invalidateSize();
      this.fit();
    }).observe(this.mapEl);
  }

  /** Without animation: a fit can follow a resize at once, and an animation cut short leaves markers out. */
  private fit(): void {
    if (this.view.length === 1) this.map.setView(this.view[0], 12, { animate: false });
    else if (this.view.length) this.map.fitBounds(L.latLngBounds(this.view), { padding: [32, 32], maxZoom: 14, animate: false });
  }

  private url(params: Record<string, string>): string {
    const u = new URL(`${this.options.api.replace(/\/+$/, '')}/store_locator`);
    u.searchParams.set('cc_id', this.options.company);
    for (const [k, v] of Object.entries(params)) u.searchParams.set(k, v);
    if (this.storeType.value) u.searchParams.set('store_type', this.storeType.value);
    if (this.product.value) u.searchParams.set('stocked_product_ids', this.product.value);
    if (this.openNow.checked) u.searchParams.set('open_now', 'true');
    return u.toString();
  }

  private async fetchPage(url: string): Promise<{ ok: true; page: Page } | { ok: false; status: number; body: any }> {
    this.inflight?.abort();
    const controller = (this.inflight = new AbortController());
    const res = await fetch(url, { signal: controller.signal, headers: { Accept: 'application/json' } });
    const body = await res.json().catch(() => null);
    return res.ok ? { ok: true, page: body as Page } : { ok: false, status: res.status, body };
  }

  /** Before any search: every store of the network on the map, for a first look. */
  private async overview(): Promise<void> {
    try {
      const result = await this.fetchPage(
        this.url({ top_left_latitude: '85', top_left_longitude: '-180', bottom_right_latitude: '-85', bottom_right_longitude: '180' }),
      );
      if (!result.ok && result.status === 404) {
        this.unknownCompany();
        return;
      }
      if (!result.ok) throw new Error(String(result.status));
      const { page } = result;
      if (this.place) return; // a search started meanwhile
      this.fillChoices(page);
      // No search point yet: alphabetical reads better than distance from the middle of the world.
      page.results.sort((a, b) => (a.full_name ?? a.name ?? '').localeCompare(b.full_name ?? b.name ?? ''));
      this.render(page, false);
      this.say(this.t.overview(page.meta.total));
    } catch (e) {
      if ((e as Error).name !== 'AbortError') this.say(this.t.failed, true);
    }
  }

  /** The store types and products to filter on, from the whole network (kept once known). */
  private fillChoices(page: Page): void {
    if (this.storeType.options.length === 1) {
      for (const b of page.meta.aggs.store_type.buckets) this.storeType.append(el('option', { value: b.key }, b.key));
    }
    if (this.product.options.length === 1) {
      const products = new Map<string, string>();
      for (const s of page.results) for (const p of s.retailer_location_products) products.set(p.product_id, p.name);
      [...products].sort((a, b) => a[1].localeCompare(b[1])).forEach(([id, name]) => this.product.append(el('option', { value: id }, name)));
    }
  }

  private async search(): Promise<void> {
    const place = this.place;
    if (!place) return;
    this.say(this.t.searching);
    const where: Record<string, string> =
      place.kind === 'text' ? { address: place.text } : { latitude: String(place.latitude), longitude: String(place.longitude) };
    const label = place.kind === 'text' ? place.text : this.t.yourLocation;
    try {
      const result = await this.fetchPage(this.url({ ...where, radius: `${this.radius.value}${this.options.units}`, per_page: String(PAGE_SIZE) }));
      if (!result.ok) {
        this.render(null, true);
        this.say(result.status === 400 && result.body?.parameter === 'address' ? this.t.unknownPlace : this.t.failed, true);
        return;
      }
      const { page } = result;
      this.render(page, true);
      this.say(page.results.length ? this.t.found(page.results.length, page.meta.total, label) : this.t.none(label));
    } catch (e) {
      if ((e as Error).name !== 'AbortError') this.say(this.t.failed, true);
    }
  }

  private locate(): void {
    if (!('geolocation' in navigator)) {
      this.say(this.t.noLocation, true);
      return;
    }
    this.say(this.t.locating);
    navigator.geolocation.getCurrentPosition(
      (pos) => {
        this.place = { kind: 'point', latitude: pos.coords.latitude, longitude: pos.coords.longitude };
        this.query.value = '';
        void this.search();
      },
      () => this.say(this.t.noLocation, true),
      { timeout: 10_000, maximumAge: 300_000 },
    );
  }

  private say(text: string, error = false): void {
    this.status.textContent = text;
    if (error) this.status.dataset.kind = 'error';
    else delete this.status.dataset.kind;
  }

  private todayHours(store: Store): string {
    const time = (h: number, m: number | null) => this.times.format(new Date(Date.UTC(2000, 0, 1, h, m ?? 0)));
    const special = store.hours_today;
    if (special?.exception) {
      if (special.closed) return special.label ? this.t.closedTodayFor(special.label) : this.t.closedToday;
      const spans = special.hours.map((s) => `${time(s.open_at_hour, s.open_at_minute)}–${time(s.close_at_hour, s.close_at_minute)}`).join(', ');
      return this.t.specialHours(spans, special.label);
    }
    const today = store.retailer_location_hours.find((h) => h.day === store.local_weekday);
    if (!today?.open || today.open_at_hour === null || today.close_at_hour === null) return this.t.closedToday;
    return this.t.todayHours(time(today.open_at_hour, today.open_at_minute), time(today.close_at_hour, today.close_at_minute));
  }

  /** The list and the markers, numbered alike. `withDistance` is false for the overview (no search point). */
  private render(page: Page | null, withDistance: boolean): void {
    const t = this.t;
    this.list.replaceChildren();
    this.clusters.set([]);
    this.markers.clear();
    this.storeNumbers.clear();
    this.selected = null;
    this.originMarker?.remove();
    this.originMarker = null;
    if (!page) return;
    const bounds: L.LatLngExpression[] = [];
    const pins: Pin[] = [];
    page.results.forEach((store, i) => {
      const name = store.full_name ?? store.name ?? '';
      const number = String(i + 1);
      this.storeNumbers.set(store.id, number);
      const nameButton = el('button', { type: 'button', class: 'ln-name', 'aria-label': t.showOnMap(name) }, name);
      nameButton.addEventListener('click', () => this.select(store.id, false));
      const phone = telUrl(store.phone_number?.phone_number);
      const directions = webUrl(store.directions_url);
      const distance =
        withDistance && typeof store.distance === 'number' ? `${this.numbers.format(store.distance)} ${page.meta.distance_unit}` : null;
      const item = el(
        'li',
        { class: 'ln-store', 'data-store-id': store.id, 'aria-current': 'false' },
        el('span', { class: 'ln-num', 'aria-hidden': 'true' }, number),
        el('div', { class: 'ln-head' }, el('h3', {}, nameButton), distance ? el('span', { class: 'ln-distance', 'aria-label': t.away(distance) }, distance) : null),
        store.store_type ? el('div', { class: 'ln-meta' }, el('span', { class: 'ln-tier' }, store.store_type)) : null,
        store.address ? el('p', { class: 'ln-line ln-address' }, store.address.string) : null,
        el(
          'p',
          { class: 'ln-line ln-hours' },
          el('span', { class: `ln-state ln-state--${store.open_now ? 'open' : 'closed'}` }, store.open_now ? t.open : t.closed),
          el('span', { class: 'ln-today' }, this.todayHours(store)),
        ),
        el(
          'p',
          { class: 'ln-line ln-links' },
          phone ? el('a', { href: phone, 'aria-label': t.call(name) }, store.phone_number!.formatted ?? store.phone_number!.phone_number) : null,
          directions
            ? el('a', { href: directions, target: '_blank', rel: 'noopener noreferrer', 'aria-label': t.directionsTo(name) }, t.directions)
            : null,
        ),
        this.options.siteKey
          ? contactButton(
              { id: store.id, name, products: store.retailer_location_products ?? [] },
              { api: this.options.api, siteKey: this.options.siteKey, lang: this.options.lang, t, el, ids: this.ids },
            )
          : null,
      );
      this.list.append(item);
      const { latitude, longitude } = store.address ?? {};
      if (typeof latitude !== 'number' || typeof longitude !== 'number' || !Number.isFinite(latitude) || !Number.isFinite(longitude)) return;
      const marker = L.marker([latitude, longitude], {
        icon: L.divIcon({ className: 'ln-marker', html: number, iconSize: [28, 28] }),
        title: name,
        alt: name,
        keyboard: true,
        riseOnHover: true,
      });
      // The clusters add and remove markers as the zoom changes; each time Leaflet makes a new element.
      marker.on('add', () => {
        const icon = marker.getElement();
        icon?.setAttribute('data-store-id', store.id);
        icon?.classList.toggle('ln-marker--selected', this.selected === store.id);
      });
      marker.on('click', () => this.select(store.id, true));
      this.markers.set(store.id, marker);
      pins.push({ id: store.id, latlng: L.latLng(latitude, longitude), marker });
      bounds.push([latitude, longitude]);
    });
    if (!page.results.length) this.list.append(el('li', { class: 'ln-empty' }, this.status.textContent ?? ''));
    if (withDistance) {
      const { latitude, longitude } = page.meta.origin;
      this.originMarker = L.marker([latitude, longitude], {
        icon: L.divIcon({ className: 'ln-origin', iconSize: [16, 16] }),
        title: t.youAreHere,
        keyboard: false,
        interactive: false,
      }).addTo(this.map);
      bounds.push([latitude, longitude]);
    }
    this.view = bounds;
    this.map.invalidateSize();
    this.fit();
    this.clusters.set(pins);
  }

  /** The number of store `id` in the list (and on its marker). */
  private numberOf(id: string): string {
    return this.storeNumbers.get(id) ?? '?';
  }

  /** One store, in the list and on the map; from the map, the list item takes the focus. */
  private select(id: string, fromMap: boolean): void {
    this.selected = id;
    for (const item of this.list.querySelectorAll<HTMLLIElement>('.ln-store')) {
      item.setAttribute('aria-current', String(item.dataset.storeId === id));
    }
    for (const [storeId, marker] of this.markers) {
      const on = storeId === id;
      marker.getElement()?.classList.toggle('ln-marker--selected', on);
      marker.setZIndexOffset(on ? 1000 : 0);
    }
    // Out of its cluster (zooming in) and into view.
    this.clusters.reveal(id);
    const item = this.list.querySelector<HTMLLIElement>(`.ln-store[data-store-id="${CSS.escape(id)}"]`);
    if (fromMap && item) {
      item.scrollIntoView({ block: 'nearest' });
      item.querySelector<HTMLButtonElement>('.ln-name')?.focus();
    }
  }
}
