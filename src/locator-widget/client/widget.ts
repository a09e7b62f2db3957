import { Finder, type FinderOptions } from './finder';
import { pickLang } from './i18n';

/**
 * The embeddable store finder (`GET /locator/widget.js`). Every element carrying `data-leadnet-locator`
 * becomes a finder in its own shadow root, talking to the public store locator API of the server the
 * script came from (or `data-api`). Data attributes: `data-company` (required), `data-color`,
 * `data-radius`, `data-units` (`mi` or `km`), `data-lang` (`en` or `fr`; default: the page's language).
 */
const script = document.currentScript as HTMLScriptElement | null;
const scriptUrl = script?.src ? new URL(script.src) : new URL('/locator/widget.js', location.href);

function optionsOf(host: HTMLElement): FinderOptions | null {
  const d = host.dataset;
  const company = (d.company ?? '').trim();
  if (!company) return null;
  const radius = Number(d.radius);
  return {
    company,
    api: d.api?.trim() || new URL('../v1', scriptUrl).toString(),
    color: d.color?.trim() || null,
    radius: Number.isFinite(radius) && radius > 0 && radius <= 1000 ? radius : 25,
    units: d.units?.trim().toLowerCase() === 'km' ? 'km' : 'mi',
    lang: pickLang(d.lang ?? document.documentElement.lang),
    tileUrl: __LEADNET_LOCATOR__.tileUrl,
    tileAttribution: __LEADNET_LOCATOR__.tileAttribution,
  };
}

/** Mounts a finder on `host` (once). */
export function mount(host: HTMLElement): void {
  if (host.dataset.leadnetMounted) return;
  const options = optionsOf(host);
  if (!options) {
    console.error('leadnet locator: data-company is required on', host);
    return;
  }
  host.dataset.leadnetMounted = 'true';
  new Finder(host, options);
}

function mountAll(): void {
  document.querySelectorAll<HTMLElement>('[data-leadnet-locator]').forEach(mount);
}

(window as unknown as { LeadnetLocator: unknown }).LeadnetLocator = { mount, mountAll };
if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', mountAll);
else mountAll();
