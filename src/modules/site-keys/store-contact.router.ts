import { Router, type Response } from 'express';
import type { ContextDeps } from '../../context';
import { logger } from '../../logger';
import { AppError, badRequest } from '../../errors';
import { badRequestBody } from '../../http/envelopes';
import { parseQueryString } from '../../rest/query';
import { checkJson, LimitViolation } from '../../limits';
import { normalOrigin } from './site-key.service';
import { MAX_CONTACT_BYTES, Refused, StoreContactService } from './store-contact.service';

/** The one answer to a refused request: the same whether the store, the key, the origin or the proof was wrong. */
export const REFUSED = { error: 'refused' } as const;
/** The answer to an accepted request: the same for a new lead, a merge and a honeypot. */
export const RECEIVED = { status: 'received' } as const;

const CONTACT_PATH = /^\/store_locator\/(?:challenge|[^/]+\/leads)\/?$/i;

/**
 * `GET /v1/store_locator/challenge?site_key=pk_…` and `POST /v1/store_locator/{id}/leads` (docs/lead-loop.md):
 * public (no API key), called by browsers on a site key's allowed origins only. CORS names exactly the
 * request's origin when a working key allows it (a preflight carries no key, so any working key's
 * origin is answered; the request itself is checked against its own key), and nothing otherwise.
 * Mounted before the store locator's routes, whose CORS is `*`.
 */
export function storeContactRouter(deps: ContextDeps): Router {
  const service = new StoreContactService(deps);
  const router = Router();

  router.use(async (req, res, next) => {
    if (!CONTACT_PATH.test(req.path)) return next();
    res.vary('Origin');
    const origin = normalOrigin(req.header('origin'));
    if (origin && (await service.knownOrigin(origin))) {
      res.set('Access-Control-Allow-Origin', origin);
      res.set('Access-Control-Expose-Headers', 'RateLimit, RateLimit-Policy, Retry-After');
    }
    if (req.method === 'OPTIONS') {
      if (res.getHeader('Access-Control-Allow-Origin')) {
        res.set('Access-Control-Allow-Methods', /challenge\/?$/i.test(req.path) ? 'GET' : 'POST');
        res.set('Access-Control-Allow-Headers', 'Content-Type, Accept');
        res.set('Access-Control-Max-Age', '600');
      }
      res.status(204).end();
      return;
    }
    next();
  });

  router.get('/store_locator/challenge', async (req, res) => {
    res.set('Cache-Control', 'no-store');
    try {
      // The one reader of /v1 query strings: a shape no site key has (an object, a list, a prototype name)
      // is a 400 in the generic envelope, as on every /v1 path; only a well-formed request can be refused.
      let siteKey: unknown;
      try {
        siteKey = parseQueryString(req.originalUrl).site_key;
        if (siteKey !== undefined && typeof siteKey !== 'string') throw badRequest('site_key must be one string');
      } catch (e) {
        if (!(e instanceof AppError)) throw e;
        res.status(400).json(badRequestBody(e.message));
        return;
      }
      res.json(await service.challenge(siteKey, normalOrigin(req.header('origin'))));
    } catch (e) {
      refuse(res, e);
    }
  });

  router.post('/store_locator/:id/leads', async (req, res) => {
    res.set('Cache-Control', 'no-store');
    const length = Number(req.header('content-length') ?? 0);
    const body: unknown = req.body;
    if (length > MAX_CONTACT_BYTES) {
      res.status(413).json(REFUSED);
      return;
    }
    // No form is a list, a scalar or nested deeply (checked without recursion, before anything walks it).
    if (!body || typeof body !== 'object' || Array.isArray(body) || !withinJsonLimits(body)) {
      res.status(403).json(REFUSED);
      return;
    }
    if (Buffer.byteLength(JSON.stringify(body)) > MAX_CONTACT_BYTES) {
      res.status(413).json(REFUSED);
      return;
    }
    const form = body as Record<string, unknown>;
    let admitted;
    try {
      admitted = await service.admit(req.params.id, form, normalOrigin(req.header('origin')));
    } catch (e) {
      refuse(res, e);
      return;
    }
    // The honeypot: a field people never see. Filled, the request is answered as a success and nothing is kept.
    if (form.website !== undefined && form.website !== null && form.website !== '') {
      logger.info({ store: req.params.id }, 'store contact: honeypot filled; nothing stored');
      res.status(202).json(RECEIVED);
      return;
    }
    await service.submit(admitted, form);
    res.status(202).json(RECEIVED);
  });

  return router;
}

function withinJsonLimits(body: object): boolean {
  try {
    checkJson(body, { text: false });
    return true;
  } catch (e) {
    if (e instanceof LimitViolation) return false;
    throw e;
  }
}

function refuse(res: Response, e: unknown): void {
  if (!(e instanceof Refused)) throw e;
  logger.info({ reason: e.reason }, 'store contact: refused');
  res.status(403).json(REFUSED);
}

