import { Finder, type FinderOptions } from './finder';
import { pickLang } from './i18n';

/**
 * The embeddable store finder (`GET /locator/widget.js`). Every element carrying `data-leadnet-locator`
 * becomes a finder in its own shadow root, talking to the public store locator API of the server the
 * script came from (or `data-api`). Data attributes: `data-company` (required), `data-color`,
 * `data-radius`, `data-units` (`mi` or `km`), `data-lang` (`en` or `fr`; default: the page's language),
 * `data-site-key` (the company's publishable `pk_…` key: each store gets a "Contact this store" form).
 *
 * The script leaves nothing on the host page: no global (not even Leaflet's), no listener on its window,
 * and no API object to call. Elements added later (a single-page app's next view) are found by a
 * MutationObserver and mounted too; each element is mounted once. Loaded twice (two snippets on one page),
 * the second copy finds the first one running (an event it answers) and does nothing.
 */
const script = document.currentScript as HTMLScriptElement | null;
const scriptUrl = script?.src ? new URL(script.src) : new URL('/locator/widget.js', location.href);
const SELECTOR = '[data-leadnet-locator]';
const LOADED = 'leadnet-locator:loaded';

/** `data-api` when it is a web address; otherwise the API of the server this script came from. */
function apiOf(value: string | undefined): string {
  if (value?.trim()) {
    try {
      const url = new URL(value.trim(), location.href);
      if (url.protocol === 'https:' || url.protocol === 'http:') return url.toString();
    } catch {
      // falls back below
    }
    console.error(`leadnet locator: data-api="${value}" is not a web address; using ${new URL('../v1', scriptUrl)}`);
  }
  return new URL('../v1', scriptUrl).toString();
}

function optionsOf(host: HTMLElement): FinderOptions | null {
  const d = host.dataset;
  const company = (d.company ?? '').trim().slice(0, 100);
  if (!company) return null;
  const radius = Number(d.radius);
  return {
    company,
    api: apiOf(d.api),
    color: d.color?.trim().slice(0, 100) || null,
    radius: Number.isInteger(radius) && radius > 0 && radius <= 1000 ? radius : 25,
    units: d.units?.trim().toLowerCase() === 'km' ? 'km' : 'mi',
    lang: pickLang(d.lang ?? document.documentElement.lang),
    tileUrl: __LEADNET_LOCATOR__.tileUrl,
    tileAttribution: __LEADNET_LOCATOR__.tileAttribution,
    siteKey: /^pk_[A-Za-z0-9_-]{32}$/.test(d.siteKey?.trim() ?? '') ? d.siteKey!.trim() : null,
  };
}

/** Mounts a finder on `host` (once, whichever copy of the script gets there first). */
function mount(host: HTMLElement): void {
  if (host.dataset.leadnetMounted) return;
  const options = optionsOf(host);
  host.dataset.leadnetMounted = options ? 'true' : 'error';
  if (!options) {
    console.error('leadnet locator: data-company is required on', host);
    return;
  }
  try {
    new Finder(host, options);
  } catch (e) {
    // An element that cannot hold a shadow root (an <img>...) or a host page that broke the DOM.
    host.dataset.leadnetMounted = 'error';
    console.error('leadnet locator: the store finder could not start on', host, e);
  }
}

function mountIn(node: Node): void {
  if (!(node instanceof HTMLElement)) return;
  if (node.matches(SELECTOR)) mount(node);
  node.querySelectorAll<HTMLElement>(SELECTOR).forEach(mount);
}

function start(): void {
  mountIn(document.documentElement);
  new MutationObserver((records) => {
    for (const record of records) {
      if (record.type === 'attributes') mountIn(record.target);
      else record.addedNodes.forEach(mountIn);
    }
  }).observe(document.documentElement, { childList: true, subtree: true, attributes: true, attributeFilter: ['data-leadnet-locator'] });
}

// Another copy of this script already running answers this event (preventDefault): this copy stays idle.
const probe = new CustomEvent(LOADED, { cancelable: true });
document.dispatchEvent(probe);
if (!probe.defaultPrevented) {
  document.addEventListener(LOADED, (e) => e.preventDefault());
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start, { once: true });
  else start();
}
