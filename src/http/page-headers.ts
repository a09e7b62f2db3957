import { createHash } from 'node:crypto';
import type { RequestHandler, Response } from 'express';

/**
 * The security headers of the service's HTML pages and of the script brands embed. Two kinds
 * of page:
 *
 * - **Tool pages** (GraphiQL at `/graphql`, the API reference at `/v1/docs`): people paste API keys into
 *   GraphiQL and the reference's "Authorize". They load only the service's own files (`script-src 'self'`,
 *   no inline script), are never framed (`frame-ancestors 'none'`, `X-Frame-Options: DENY`: no
 *   clickjacking of a page holding a key), send no `Referer` (`no-referrer`: nothing of the page's address
 *   reaches the links it shows) and keep no opener (`Cross-Origin-Opener-Policy`).
 * - **The store finder page** (`/locator/{company_id}`): public data, meant to be framed by any brand's
 *   site (`frame-ancestors *`), so no `X-Frame-Options`; its scripts, styles, API calls and images are the
 *   service's own plus the configured tile server; `Referer` carries the origin only (tile servers such as
 *   OpenStreetMap's want one).
 *
 * Every response carries `X-Content-Type-Options: nosniff` (`baseHeaders`).
 */
export type Directives = Record<string, string>;

export function contentSecurityPolicy(directives: Directives): string {
  return Object.entries(directives)
    .map(([name, value]) => `${name} ${value}`)
    .join('; ');
}

/** A CSP source for an inline `<style>` element with exactly this text. */
export function styleHash(text: string): string {
  return `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;
}

/** `X-Content-Type-Options: nosniff` on every response: a JSON error is never run as a script. */
export const baseHeaders: RequestHandler = (_req, res, next) => {
  res.set('X-Content-Type-Options', 'nosniff');
  next();
};

/** The CSP of a tool page: the service's own scripts, styles, images and API, nothing else. */
export const TOOL_PAGE_CSP: Directives = {
  'default-src': "'none'",
  'script-src': "'self'",
  'style-src': "'self'",
  'img-src': "'self' data:",
  'font-src': "'self' data:",
  'connect-src': "'self'",
  'base-uri': "'none'",
  'form-action': "'none'",
  'frame-ancestors': "'none'",
};

/** Headers of a tool page (GraphiQL, the API reference); `csp` adds to or replaces `TOOL_PAGE_CSP`'s directives. */
export function toolPageHeaders(res: Response, csp: Directives = {}): Response {
  return res.set({
    'Content-Security-Policy': contentSecurityPolicy({ ...TOOL_PAGE_CSP, ...csp }),
    'X-Frame-Options': 'DENY',
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'no-referrer',
    'Cross-Origin-Opener-Policy': 'same-origin',
    'Cross-Origin-Resource-Policy': 'same-origin',
    'Permissions-Policy': 'camera=(), microphone=(), geolocation=(), payment=(), usb=()',
  });
}

/** Headers of the store finder page, which any site may frame; `csp` is its whole policy but `frame-ancestors`. */
export function embeddablePageHeaders(res: Response, csp: Directives): Response {
  return res.set({
    'Content-Security-Policy': contentSecurityPolicy({ ...csp, 'frame-ancestors': '*' }),
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'strict-origin-when-cross-origin',
    // "Use my location" works in the page and in a brand's iframe that allows it (allow="geolocation").
    'Permissions-Policy': 'geolocation=(self), camera=(), microphone=(), payment=(), usb=()',
  });
}

/**
 * Headers of a script other sites load (`widget.js`): any origin may load it, by `<script src>`, with
 * `crossorigin` (CORS, for Subresource Integrity or error details) or from a page with
 * `Cross-Origin-Embedder-Policy: require-corp` (CORP `cross-origin`).
 */
export function embeddableScriptHeaders(res: Response): Response {
  return res.set({
    'Access-Control-Allow-Origin': '*',
    'Cross-Origin-Resource-Policy': 'cross-origin',
    'X-Content-Type-Options': 'nosniff',
  });
}
