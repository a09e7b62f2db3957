import { Router, type Request, type Response } from 'express';
import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import type { Config } from '../../config';
import { logger } from '../../logger';
import { toolPageHeaders } from '../../http/page-headers';
import { escapeHtml, type Locale } from './notification.mail';
import { checkUnsubscribeToken } from './notification.token';
import { preferencesOf, unsubscribe } from './notification.service';

export const UNSUBSCRIBE_PATH = '/notifications/unsubscribe';

const PAGES = {
  en: {
    confirm: 'Stop the e-mails about new leads?',
    confirmBody: (email: string) => `No more e-mails about new leads will be sent to ${email}. You can turn them on again in your notification settings.`,
    button: 'Unsubscribe',
    done: 'You are unsubscribed',
    doneBody: (email: string) => `No more e-mails about new leads will be sent to ${email}.`,
  },
  fr: {
    confirm: 'Ne plus recevoir les e-mails sur les nouveaux contacts ?',
    confirmBody: (email: string) => `Plus aucun e-mail sur les nouveaux contacts ne sera envoyé à ${email}. Vous pourrez les réactiver dans vos préférences de notification.`,
    button: 'Se désabonner',
    done: 'Vous êtes désabonné',
    doneBody: (email: string) => `Plus aucun e-mail sur les nouveaux contacts ne sera envoyé à ${email}.`,
  },
} satisfies Record<Locale, unknown>;

const INVALID = {
  malformed: ['This unsubscribe link is not valid', "Ce lien de désabonnement n'est pas valide", 'Copy the whole link from the e-mail, or change your settings in your notification preferences.'],
  forged: ['This unsubscribe link is not valid', "Ce lien de désabonnement n'est pas valide", 'Copy the whole link from the e-mail, or change your settings in your notification preferences.'],
  expired: ['This unsubscribe link has expired', 'Ce lien de désabonnement a expiré', 'Use the link of a more recent e-mail, or change your settings in your notification preferences.'],
  unknown: ['This unsubscribe link is not valid', "Ce lien de désabonnement n'est pas valide", 'The account it was sent to no longer exists.'],
  disabled: ['Unsubscribe links are not enabled', 'Les liens de désabonnement ne sont pas activés', 'This service sends no e-mail.'],
} as const;

function page(res: Response, status: number, lang: string, title: string, body: string): void {
  toolPageHeaders(res, { 'form-action': "'self'" })
    .status(status)
    .set('Cache-Control', 'no-store')
    .type('html')
    .send(`<!doctype html><html lang="${lang}"><head><meta charset="utf-8"><meta name="robots" content="noindex"><title>${escapeHtml(title)}</title></head><body><h1>${escapeHtml(title)}</h1>${body}</body></html>`);
}

function invalid(res: Response, kind: keyof typeof INVALID): void {
  const [en, fr, hint] = INVALID[kind];
  page(res, kind === 'expired' ? 410 : kind === 'disabled' ? 404 : 400, 'en', en, `<p>${escapeHtml(hint)}</p><p lang="fr">${escapeHtml(fr)}</p>`);
}

/**
 * The one-click unsubscribe link of every notification mail (RFC 8058), no login: `GET` shows a page
 * with a button (link scanners that fetch URLs unsubscribe no one), `POST` (the button, or a mail client
 * honouring `List-Unsubscribe-Post`) turns the user's lead mails off. A forged, garbled or expired token
 * gets a page saying so (400, 410), never a 5xx.
 */
export function notificationRouter(orm: MikroORM, config: Config, clock: () => Date = () => new Date()): Router {
  const router = Router();
  const secret = config.notifications.secret;

  const handle = (confirm: boolean) => async (req: Request, res: Response) => {
    if (!secret) return invalid(res, 'disabled');
    const token = req.query.token;
    const check = checkUnsubscribeToken(secret, token, clock());
    if (!check.ok) return invalid(res, check.reason);
    try {
      const em = orm.em.fork() as EntityManager;
      const prefs = await preferencesOf(em, check.userId);
      if (!prefs) return invalid(res, 'unknown');
      const t = PAGES[prefs.locale === 'fr' ? 'fr' : 'en'];
      const topicWords = { sla_breached: ['leads not answered in time', 'contacts sans réponse dans les délais'], lead_escalated: ['escalated leads', 'contacts escaladés'] } as const;
      const words = check.topic === 'lead_assigned' ? null : topicWords[check.topic];
      const what = (text: string) => (words ? text.replace(/new leads|nouveaux contacts/g, (m) => (m === 'new leads' ? words[0] : words[1])) : text);
      if (!confirm) {
        const action = `${UNSUBSCRIBE_PATH}?token=${encodeURIComponent(token as string)}`;
        return page(
          res,
          200,
          prefs.locale,
          what(t.confirm),
          `<p>${escapeHtml(what(t.confirmBody(prefs.email)))}</p><form method="post" action="${escapeHtml(action)}"><input type="hidden" name="List-Unsubscribe" value="One-Click"><button type="submit">${escapeHtml(t.button)}</button></form>`,
        );
      }
      await unsubscribe(em, check.userId, check.topic);
      logger.info({ userId: check.userId, topic: check.topic }, 'notifications: unsubscribed by link');
      return page(res, 200, prefs.locale, t.done, `<p>${escapeHtml(what(t.doneBody(prefs.email)))}</p>`);
    } catch (err) {
      logger.error({ err }, 'notifications: unsubscribe failed');
      return page(res, 503, 'en', 'Please try again in a moment', '<p>The service could not record your choice just now.</p>');
    }
  };

  router.get(UNSUBSCRIBE_PATH, handle(false));
  router.post(UNSUBSCRIBE_PATH, handle(true));
  return router;
}
