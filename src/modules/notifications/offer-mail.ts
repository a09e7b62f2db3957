import type { EntityManager } from '@mikro-orm/postgresql';
import type { Config } from '../../config';
import { escapeHtml, oneLine, type Locale, type Mail } from './notification.mail';
import { offerLinkToken, offerPageUrl } from './offer-link.token';
import { latestOfferIds, lostRow, offerOfEvent } from './offer-page.repository';

/** What a delivery's links are decided by. */
interface LinkedDelivery {
  kind: string;
  event_id: string | null;
}

/** A lead of a mail with its link (`url`) and, when the operator set `NOTIFICATION_LEAD_URL`, the page beside it. */
interface Linked {
  id: string;
  url: string;
  pageUrl?: string | null;
}

/**
 * Points each lead of a mail to `userId` at the lead's page (docs/lead-loop.md "From the e-mail"): a link
 * signed for that user and the offer the mail is about (an assignment's or breach's: the offer its event
 * opened; a digest's: each lead's open, else latest, offer), working for 14 days. The API URL that answers a
 * person 401 is replaced; a dashboard set by `NOTIFICATION_LEAD_URL` stays the lead's link and the page
 * is given beside it (`pageUrl`). A lead without an offer keeps its link.
 */
export async function linkOfferPages(em: EntityManager, config: Config, row: LinkedDelivery, userId: string, leads: Linked[], now: Date): Promise<void> {
  const n = config.notifications;
  if (!n.secret || !leads.length) return;
  let offers: Map<string, string>;
  if (row.kind !== 'digest' && row.event_id) {
    const offerId = await offerOfEvent(em, row.event_id);
    offers = new Map(offerId ? [[leads[0].id, offerId]] : []);
  } else {
    offers = await latestOfferIds(em, leads.map((l) => l.id));
  }
  const dashboard = n.leadUrl !== `${n.publicUrl}/v1/leads/{id}`;
  for (const lead of leads) {
    const offerId = offers.get(lead.id);
    if (!offerId) continue;
    const page = offerPageUrl(n.publicUrl, offerLinkToken(n.secret, { leadId: lead.id, offerId, userId }, now));
    if (dashboard) lead.pageUrl = page;
    else lead.url = page;
  }
}

const LOST = {
  en: {
    subject: (name: string) => `Lead passed to another store: ${name}`,
    unnamed: 'Unnamed lead',
    intro: (name: string, store: string, at: string) => `This lead was passed to another store: ${name}, offered to ${store}, is no longer yours since ${at}.`,
    why: {
      declined: 'Your store declined it.',
      offer_expired: 'Your store did not accept it within its acceptance time.',
      sla_breached: 'Your store did not answer it within its first-response time.',
      other: 'It was reassigned.',
    } as Record<string, string>,
    nothing: 'There is nothing more to do about it.',
    footer: 'You receive this e-mail because you were told about this lead.',
    unsubscribe: 'Unsubscribe from these e-mails',
    aStore: 'your store',
  },
  fr: {
    subject: (name: string) => `Contact transmis à un autre magasin : ${name}`,
    unnamed: 'Contact sans nom',
    intro: (name: string, store: string, at: string) => `Ce contact a été transmis à un autre magasin : ${name}, proposé à ${store}, ne vous est plus attribué depuis le ${at}.`,
    why: {
      declined: 'Votre magasin l’a refusé.',
      offer_expired: 'Votre magasin ne l’a pas accepté dans son délai d’acceptation.',
      sla_breached: 'Votre magasin n’y a pas répondu dans le délai de première réponse.',
      other: 'Il a été réattribué.',
    } as Record<string, string>,
    nothing: 'Vous n’avez plus rien à faire à son sujet.',
    footer: 'Vous recevez cet e-mail car vous aviez été prévenu de ce contact.',
    unsubscribe: 'Se désabonner de ces e-mails',
    aStore: 'votre magasin',
  },
} satisfies Record<Locale, unknown>;

/**
 * The mail telling a user of a store that lost a lead that it went elsewhere (the `lead_lost` delivery of
 * the assignment event that moved it): the lead's name, the store, when and why; not the new store, not
 * the customer's details. Null when the event is gone.
 */
export async function lostLeadMail(em: EntityManager, eventId: string | null, locale: Locale, unsubscribeUrl: string): Promise<Mail | null> {
  const row = eventId ? await lostRow(em, eventId) : undefined;
  if (!row) return null;
  const t = LOST[locale];
  const name = oneLine(row.lead_name) || t.unnamed;
  const store = row.store_name ? oneLine(row.store_name) : t.aStore;
  const at = new Date(row.occurred_at).toISOString().replace('T', ' ').slice(0, 16) + ' UTC';
  const intro = t.intro(name, store, at);
  const why = t.why[row.reason ?? ''] ?? t.why.other;
  return {
    subject: oneLine(t.subject(name)),
    text: `${intro}\n${why} ${t.nothing}\n\n-- \n${t.footer}\n${t.unsubscribe}: ${unsubscribeUrl}\n`,
    html:
      `<!doctype html><html lang="${locale}"><head><meta charset="utf-8"></head><body style="font-family:sans-serif">` +
      `<p>${escapeHtml(intro)}</p><p>${escapeHtml(why)} ${escapeHtml(t.nothing)}</p>` +
      `<hr><p style="color:#666;font-size:12px">${escapeHtml(t.footer)} <a href="${escapeHtml(unsubscribeUrl)}">${escapeHtml(t.unsubscribe)}</a></p></body></html>`,
  };
}
