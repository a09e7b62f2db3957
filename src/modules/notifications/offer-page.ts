import { escapeHtml, oneLine, productsOf, type Locale } from './notification.mail';
import type { OfferLeadRow } from './offer-page.repository';

/** Why a store declines (A's list, docs/lead-loop.md), in the order the page lists them. */
export const PAGE_DECLINE_REASONS = ['too_far', 'out_of_stock', 'no_capacity', 'not_our_products', 'duplicate', 'other'] as const;

/** The page's only style, allowed by its hash in the Content-Security-Policy. */
export const OFFER_PAGE_CSS =
  'body{font-family:sans-serif;max-width:40em;margin:2em auto;padding:0 1em;line-height:1.4}' +
  'th{text-align:left;padding:2px 12px 2px 0;vertical-align:top}' +
  'form{margin:1em 0}button{font-size:1em;padding:.4em 1.2em}' +
  '.state{padding:.6em 1em;background:#eef;border-radius:4px}.error{color:#a00}' +
  'textarea{width:100%;max-width:100%}';

const TEXT = {
  en: {
    title: (name: string) => `Lead: ${name}`,
    unnamed: 'Unnamed lead',
    name: 'Name',
    email: 'E-mail',
    phone: 'Phone',
    address: 'Location',
    products: 'Products asked for',
    quantity: 'quantity',
    request: 'Message',
    store: 'Store',
    respondBy: 'Answer by',
    none: 'none given',
    offered: (store: string) => `This lead is offered to ${store}. Accept it to take it on, or decline it so that it goes to another store.`,
    waiting: (store: string) => `This lead is offered to ${store}, which has not answered yet.`,
    accept: 'Accept',
    decline: 'Decline',
    reason: 'Reason',
    chooseReason: 'Choose a reason',
    note: 'Note (required for "Other", at most 500 characters)',
    reasons: {
      too_far: 'The customer is too far away',
      out_of_stock: 'Out of stock',
      no_capacity: 'No capacity now',
      not_our_products: 'We do not sell these products',
      duplicate: 'We already have this customer',
      other: 'Other',
    } as Record<string, string>,
    accepted: (store: string, at: string) => `${store} accepted this lead (${at}).`,
    declined: (store: string, at: string) => `${store} declined this lead (${at}). It was passed to another store or to the manager.`,
    declinedTitle: 'Lead declined',
    escalated: (store: string, at: string, lapsed: boolean) =>
      `${store} ${lapsed ? 'did not accept this lead in time' : 'declined this lead'} (${at}) and no other store could take it: it was escalated and waits to be reassigned to a store.`,
    acceptedTitle: 'Lead accepted',
    goneTitle: 'This lead is no longer offered to your store',
    gone: 'It was assigned to another store, or its acceptance time passed. Nothing more to do here.',
    unavailableTitle: 'This lead is no longer available to you',
    unavailable: 'You no longer work for the store it was offered to, or it was reassigned.',
    conflictAccepted: 'It was already accepted: it cannot be declined from here.',
    conflictDeclined: 'It was already declined: it cannot be accepted any more.',
    fix: 'Please correct the form:',
  },
  fr: {
    title: (name: string) => `Contact : ${name}`,
    unnamed: 'Contact sans nom',
    name: 'Nom',
    email: 'E-mail',
    phone: 'Téléphone',
    address: 'Adresse',
    products: 'Produits demandés',
    quantity: 'quantité',
    request: 'Message',
    store: 'Magasin',
    respondBy: 'Répondre avant',
    none: 'non renseigné',
    offered: (store: string) => `Ce contact est proposé à ${store}. Acceptez-le pour le prendre en charge, ou refusez-le pour qu'il aille à un autre magasin.`,
    waiting: (store: string) => `Ce contact est proposé à ${store}, qui n'a pas encore répondu.`,
    accept: 'Accepter',
    decline: 'Refuser',
    reason: 'Motif',
    chooseReason: 'Choisissez un motif',
    note: 'Remarque (obligatoire pour « Autre », 500 caractères au plus)',
    reasons: {
      too_far: 'Le client est trop loin',
      out_of_stock: 'Rupture de stock',
      no_capacity: 'Pas de disponibilité actuellement',
      not_our_products: 'Nous ne vendons pas ces produits',
      duplicate: 'Nous avons déjà ce client',
      other: 'Autre',
    } as Record<string, string>,
    accepted: (store: string, at: string) => `${store} a accepté ce contact (${at}).`,
    declined: (store: string, at: string) => `${store} a refusé ce contact (${at}). Il a été transmis à un autre magasin ou au responsable.`,
    declinedTitle: 'Contact refusé',
    escalated: (store: string, at: string, lapsed: boolean) =>
      `${store} ${lapsed ? "n'a pas accepté ce contact à temps" : 'a refusé ce contact'} (${at}) et aucun autre magasin ne pouvait le prendre : il a été escaladé et attend d'être réattribué à un magasin.`,
    acceptedTitle: 'Contact accepté',
    goneTitle: "Ce contact n'est plus proposé à votre magasin",
    gone: "Il a été attribué à un autre magasin, ou son délai d'acceptation est passé. Il n'y a plus rien à faire ici.",
    unavailableTitle: "Ce contact n'est plus disponible pour vous",
    unavailable: "Vous ne travaillez plus pour le magasin auquel il a été proposé, ou il a été réattribué.",
    conflictAccepted: 'Il a déjà été accepté : il ne peut plus être refusé ici.',
    conflictDeclined: 'Il a déjà été refusé : il ne peut plus être accepté.',
    fix: 'Veuillez corriger le formulaire :',
  },
} satisfies Record<Locale, unknown>;

export type PageText = (typeof TEXT)[Locale];
export const pageText = (locale: Locale): PageText => TEXT[locale];

/** A time as the page shows it: UTC, to the minute. */
export function when(at: Date | string | null): string {
  if (!at) return '';
  return new Date(at).toISOString().replace('T', ' ').slice(0, 16) + ' UTC';
}

/** The whole document: escaped title, the body's HTML as built here, no script. */
export function document(locale: Locale, title: string, body: string): string {
  return (
    `<!doctype html><html lang="${locale}"><head><meta charset="utf-8"><meta name="robots" content="noindex">` +
    `<meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeHtml(title)}</title>` +
    `<style>${OFFER_PAGE_CSS}</style></head><body><h1>${escapeHtml(title)}</h1>${body}</body></html>`
  );
}

/** The lead's table: every value made one line and escaped. */
export function leadTable(t: PageText, lead: OfferLeadRow, store: string | null, respondBy: Date | string | null): string {
  const products = productsOf(lead.products).map((p) => (p.quantity ? `${p.name} (${t.quantity} ${p.quantity})` : p.name));
  const rows: Array<[string, string[]]> = [
    [t.name, [oneLine(lead.name) || t.unnamed]],
    [t.email, (lead.emails ?? []).map((x) => oneLine(x))],
    [t.phone, (lead.phones ?? []).map((x) => oneLine(x))],
    [t.address, lead.address ? [oneLine(lead.address, 400)] : []],
    [t.products, products],
    [t.request, lead.notes ? [oneLine(lead.notes, 1000)] : []],
    ...(store ? [[t.store, [oneLine(store)]] as [string, string[]]] : []),
    ...(respondBy ? [[t.respondBy, [when(respondBy)]] as [string, string[]]] : []),
  ];
  return `<table>${rows
    .map(([label, values]) => `<tr><th>${escapeHtml(label)}</th><td>${values.length ? values.map(escapeHtml).join('<br>') : `<i>${escapeHtml(t.none)}</i>`}</td></tr>`)
    .join('')}</table>`;
}

/** The Accept and Decline forms, both posting to `action` with the form secret. */
export function answerForms(t: PageText, action: string, formSecret: string, given: { reason?: string; note?: string } = {}, errors: string[] = []): string {
  const hidden = (name: string, value: string) => `<input type="hidden" name="${name}" value="${escapeHtml(value)}">`;
  const options = PAGE_DECLINE_REASONS.map(
    (r) => `<option value="${r}"${given.reason === r ? ' selected' : ''}>${escapeHtml(t.reasons[r])}</option>`,
  ).join('');
  const problems = errors.length ? `<div class="error" role="alert"><p>${escapeHtml(t.fix)}</p><ul>${errors.map((e) => `<li>${escapeHtml(e)}</li>`).join('')}</ul></div>` : '';
  return (
    `<form method="post" action="${escapeHtml(action)}" id="accept">${hidden('form', formSecret)}${hidden('action', 'accept')}` +
    `<button type="submit">${escapeHtml(t.accept)}</button></form>` +
    `<form method="post" action="${escapeHtml(action)}" id="decline">${problems}${hidden('form', formSecret)}${hidden('action', 'decline')}` +
    `<p><label for="reason">${escapeHtml(t.reason)}</label><br><select name="reason" id="reason" required><option value="">${escapeHtml(t.chooseReason)}</option>${options}</select></p>` +
    `<p><label for="note">${escapeHtml(t.note)}</label><br><textarea name="note" id="note" maxlength="500" rows="3">${escapeHtml(given.note ?? '')}</textarea></p>` +
    `<button type="submit">${escapeHtml(t.decline)}</button></form>`
  );
}
