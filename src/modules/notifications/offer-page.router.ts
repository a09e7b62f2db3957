import express, { Router, type Request, type Response } from 'express';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Caller } from '../../auth/caller';
import type { Role } from '../user/role';
import { buildContext, type ContextDeps } from '../../context';
import { about, can } from '../../access/policy';
import { AppError } from '../../errors';
import { logger } from '../../logger';
import { styleHash, toolPageHeaders } from '../../http/page-headers';
import { compileScope } from '../../search/where';
import { leadSearch } from '../lead/lead.search';
import { leadPolicy, leadScope } from '../lead/lead.policy';
import { LeadOfferService } from '../lead/lead-offer.service';
import { escapeHtml, type Locale } from './notification.mail';
import { leadIdsInScope } from './notification.repository';
import { checkOfferFormSecret, checkOfferLinkToken, offerFormSecret, OFFER_PAGE_PATH, type OfferLink } from './offer-link.token';
import { offerLeadRow, offerPageRow, userCallerRow, type OfferPageRow, type UserCallerRow } from './offer-page.repository';
import { answerForms, document, leadTable, OFFER_PAGE_CSS, pageText, when, type PageText } from './offer-page';

const INVALID = {
  malformed: [400, 'This link is not valid', "Ce lien n'est pas valide", 'Copy the whole link from the e-mail.'],
  forged: [400, 'This link is not valid', "Ce lien n'est pas valide", 'Copy the whole link from the e-mail.'],
  expired: [410, 'This link has expired', 'Ce lien a expiré', 'Links in lead e-mails work for 14 days. Open the lead from a more recent e-mail or from your lead list.'],
  unknown: [400, 'This link is not valid', "Ce lien n'est pas valide", 'The account it was sent to no longer exists.'],
  missing: [404, 'This lead no longer exists', "Ce contact n'existe plus", 'It was deleted or merged into another lead.'],
  body: [400, 'This form could not be read', "Ce formulaire n'a pas pu être lu", 'Open the link from the e-mail again and use its buttons.'],
  csrf: [403, 'This form cannot be sent from here', 'Ce formulaire ne peut pas être envoyé depuis cette page', 'Open the link from the e-mail again and use its buttons.'],
  disabled: [404, 'Lead links are not enabled', 'Les liens vers les contacts ne sont pas activés', 'This service sends no e-mail.'],
  unavailable: [503, 'Please try again in a moment', 'Veuillez réessayer dans un instant', 'The service could not answer just now.'],
} as const;
type Invalid = keyof typeof INVALID;

function send(res: Response, status: number, html: string): void {
  toolPageHeaders(res, { 'style-src': styleHash(OFFER_PAGE_CSS), 'form-action': "'self'" })
    // A same-origin POST carries its Origin (with `no-referrer` it would be `null`); nothing leaves the site.
    .set('Referrer-Policy', 'same-origin')
    .status(status)
    .set('Cache-Control', 'no-store')
    .type('html')
    .send(html);
}

function invalid(res: Response, kind: Invalid): void {
  const [status, en, fr, hint] = INVALID[kind];
  send(res, status, document('en', en, `<p>${escapeHtml(hint)}</p><p lang="fr">${escapeHtml(fr)}</p>`));
}

function callerOf(row: UserCallerRow): Caller {
  return {
    userId: row.id,
    role: row.role as Role,
    companyId: row.company_id,
    retailerId: row.retailer_id,
    territoryId: row.territory_id,
    companyRetailerIds: row.cr_ids ?? [],
    companyRetailerLocationIds: row.crl_ids ?? [],
    retailerLocationIds: row.rl_ids ?? [],
  };
}

/** Everything a request of the page knows once its token is checked. */
interface Loaded {
  link: OfferLink;
  token: string;
  locale: Locale;
  t: PageText;
  caller: Caller;
  offer: OfferPageRow;
  /** The recipient may see the lead now (the lead list's rule). */
  visible: boolean;
  /** The recipient answers for the offer's store now (the lead policy's `answerOffer`). */
  answers: boolean;
}

/**
 * The page a lead mail's link opens (docs/lead-loop.md "From the e-mail"), no login: `GET` shows the lead
 * and, while its offer is open and the mail's recipient answers for the store, Accept and Decline forms;
 * `POST` accepts or declines as that user through the offers service. The token names one lead, its
 * offer and the recipient (offer-link.token.ts); the forms carry a secret derived from it and are refused
 * from another origin. A bad, expired or stale link is a page with a 4xx status, never a 5xx.
 */
export function offerPageRouter(deps: ContextDeps, clock: () => Date = () => new Date()): Router {
  const router = Router();
  const { orm, config } = deps;
  const path = `${OFFER_PAGE_PATH}/:token`;

  async function load(req: Request, res: Response): Promise<Loaded | null> {
    const secret = config.notifications.secret;
    if (!secret) return invalid(res, 'disabled'), null;
    const token = String(req.params.token);
    const check = checkOfferLinkToken(secret, token, clock());
    if (!check.ok) return invalid(res, check.reason), null;
    const em = orm.em.fork() as EntityManager;
    const user = await userCallerRow(em, check.userId);
    if (!user) return invalid(res, 'unknown'), null;
    const offer = await offerPageRow(em, check.offerId, check.leadId);
    if (!offer) return invalid(res, 'missing'), null;
    const caller = callerOf(user);
    const cond = compileScope(leadSearch, { _and: [{ id: [check.leadId] }, leadScope(caller)] });
    const visible = (await leadIdsInScope(em, cond)).length > 0;
    const answers = can(caller, 'answerOffer', about(leadPolicy, { offerStore: { id: offer.store_id, retailerLocationId: offer.retailer_location_id, retailerId: offer.retailer_id } }));
    const locale: Locale = user.locale === 'fr' ? 'fr' : 'en';
    return { link: check, token, locale, t: pageText(locale), caller, offer, visible, answers };
  }

  /** The page for the offer as it stands now; `extra` (a conflict, form errors) shown above it. */
  async function render(res: Response, l: Loaded, opts: { status?: number; notice?: string; errors?: string[]; given?: { reason?: string; note?: string } } = {}): Promise<void> {
    const { t, offer, locale } = l;
    const store = offer.store_name ?? '';
    const notice = opts.notice ? `<p class="state error" role="alert">${escapeHtml(opts.notice)}</p>` : '';
    if (!l.visible && !l.answers) return send(res, 403, document(locale, t.unavailableTitle, `${notice}<p>${escapeHtml(t.unavailable)}</p>`));
    if (offer.escalated && l.visible && (offer.state === 'declined' || offer.state === 'expired')) {
      // Escalated (the escalation mail's link): the lead stays at the store, waiting for someone to reassign it.
      const lead = await offerLeadRow(orm.em.fork() as EntityManager, offer.lead_id);
      if (!lead) return invalid(res, 'missing');
      const said = t.escalated(store, when(offer.answered_at), offer.state === 'expired');
      return send(res, opts.status ?? 200, document(locale, t.title(lead.name || t.unnamed), `${notice}<p class="state" id="state" data-state="escalated">${escapeHtml(said)}</p>${leadTable(t, lead, store, null)}`));
    }
    if (offer.state === 'withdrawn' || offer.state === 'expired') return send(res, opts.status ?? 410, document(locale, t.goneTitle, `${notice}<p>${escapeHtml(t.gone)}</p>`));
    if (offer.state === 'declined') {
      return send(res, opts.status ?? 200, document(locale, t.declinedTitle, `${notice}<p class="state" id="state" data-state="declined">${escapeHtml(t.declined(store, when(offer.answered_at)))}</p>`));
    }
    const lead = await offerLeadRow(orm.em.fork() as EntityManager, offer.lead_id);
    if (!lead) return invalid(res, 'missing');
    // A lead the recipient no longer sees (it moved on after its store accepted) is not named.
    const title = l.visible ? t.title(lead.name || t.unnamed) : t.acceptedTitle;
    const table = l.visible ? leadTable(t, lead, store, offer.state === 'open' ? offer.respond_by : null) : '';
    if (offer.state === 'accepted') {
      return send(res, opts.status ?? 200, document(locale, title, `${notice}<p class="state" id="state" data-state="accepted">${escapeHtml(t.accepted(store, when(offer.answered_at)))}</p>${table}`));
    }
    // Open.
    if (!l.answers) return send(res, opts.status ?? 200, document(locale, title, `${notice}<p class="state" id="state" data-state="open">${escapeHtml(t.waiting(store))}</p>${table}`));
    const action = `${OFFER_PAGE_PATH}/${encodeURIComponent(l.token)}`;
    const forms = answerForms(t, action, offerFormSecret(config.notifications.secret!, l.token), opts.given, opts.errors);
    return send(res, opts.status ?? 200, document(locale, title, `${notice}<p class="state" id="state" data-state="open">${escapeHtml(t.offered(store))}</p>${table}${forms}`));
  }

  /** A form's POST comes from this service's own page: `Origin` (else `Referer`), when sent, is the public URL's origin. */
  function sameOrigin(req: Request): boolean {
    let own: string;
    try {
      own = new URL(config.notifications.publicUrl).origin;
    } catch {
      return false;
    }
    const origin = req.get('origin');
    if (origin !== undefined) return origin === own;
    const referer = req.get('referer');
    if (referer === undefined) return true;
    try {
      return new URL(referer).origin === own;
    } catch {
      return false;
    }
  }

  const guarded = (handler: (req: Request, res: Response) => Promise<void>) => async (req: Request, res: Response) => {
    try {
      await handler(req, res);
    } catch (err) {
      logger.error({ err }, 'lead offer page failed');
      if (!res.headersSent) invalid(res, 'unavailable');
    }
  };

  router.get(
    path,
    guarded(async (req, res) => {
      const l = await load(req, res);
      if (l) await render(res, l);
    }),
  );

  const form = express.urlencoded({ extended: false, limit: '8kb', parameterLimit: 20 });
  router.post(
    path,
    // A body too large, malformed or of too many fields is a page too, not the API's JSON error.
    (req, res, next) => form(req, res, (err?: unknown) => (err ? invalid(res, 'body') : next())),
    guarded(async (req, res) => {
      const l = await load(req, res);
      if (!l) return;
      const body = (req.body ?? {}) as Record<string, unknown>;
      if (!sameOrigin(req) || !checkOfferFormSecret(config.notifications.secret!, l.token, body.form)) return invalid(res, 'csrf');
      const action = body.action;
      if (action !== 'accept' && action !== 'decline') return render(res, l, { status: 400 });
      const given = { reason: typeof body.reason === 'string' ? body.reason : undefined, note: typeof body.note === 'string' ? body.note : undefined };
      const { t } = l;
      // Answered already: the same answer shows its page (idempotent), the other answer is a conflict.
      if (l.offer.state === 'accepted') return render(res, l, action === 'accept' ? {} : { status: 409, notice: t.conflictAccepted });
      if (l.offer.state === 'declined') return render(res, l, action === 'decline' ? {} : { status: 409, notice: t.conflictDeclined });
      if (l.offer.state !== 'open' || !l.answers) return render(res, l);
      const ctx = await buildContext(deps, undefined, l.caller);
      try {
        const offers = new LeadOfferService(ctx);
        if (action === 'accept') await offers.accept(l.link.leadId);
        else await offers.decline(l.link.leadId, given.reason || undefined, given.note);
      } catch (err) {
        if (!(err instanceof AppError)) throw err;
        if (err.code === 'BAD_USER_INPUT') return render(res, l, { status: 422, given, errors: err.details.map((d) => d.fullMessage || d.message) });
        if (err.code !== 'CONFLICT' && err.code !== 'FORBIDDEN' && err.code !== 'NOT_FOUND') throw err;
        // Someone answered first, or the recipient may no longer answer: the page as it stands now.
        const now = await load(req, res);
        if (!now) return;
        if (now.offer.state === (action === 'accept' ? 'accepted' : 'declined')) return render(res, now);
        if (now.offer.state === 'accepted') return render(res, now, { status: 409, notice: t.conflictAccepted });
        if (now.offer.state === 'declined') return render(res, now, { status: 409, notice: t.conflictDeclined });
        if (now.offer.state === 'open') return send(res, 403, document(now.locale, t.unavailableTitle, `<p>${escapeHtml(t.unavailable)}</p>`));
        return render(res, now);
      }
      logger.info({ leadId: l.link.leadId, offerId: l.offer.id, userId: l.caller.userId, action }, 'lead offer answered from the e-mail page');
      const after = await load(req, res);
      if (after) await render(res, after);
    }),
  );
  return router;
}
