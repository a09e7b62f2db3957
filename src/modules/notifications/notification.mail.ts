import type { Topic } from './notification.defaults';
/** The languages of notification mails (a user's `locale`). */
export const LOCALES = ['en', 'fr'] as const;
export type Locale = (typeof LOCALES)[number];

/** What a mail says about one lead: what any user who may see the lead may read of it. */
export interface LeadSummary {
  id: string;
  name: string | null;
  emails: string[];
  phones: string[];
  address: string | null;
  products: Array<{ name: string; quantity: string | null }>;
  storeName: string | null;
  url: string;
  /** The lead's Accept / Decline page beside `url` when `url` is the operator's dashboard (offer-mail.ts). */
  pageUrl?: string | null;
  /** What the mail tells of this lead, as it was when it happened (the delivery's `about`); digests show it per lead. */
  about?: About | null;
}

/**
 * What a delivery is about, copied at fan-out (`notification_deliveries.about`): an assignment (its store,
 * time, the store it came from, its activity's reason or routing rule) or a breach (its store, times, and
 * what became of the lead). A mail sent after the lead moved on still tells this one.
 */
export interface About {
  kind?: 'assignment' | 'breach' | 'reminder' | 'escalation';
  store_id?: string | null;
  store_name?: string | null;
  at?: string | null;
  from_id?: string | null;
  from_name?: string | null;
  /** The `Assignment` activity's reason: `sla_breached` (escalated), `declined`, `offer_expired`, or none. */
  reason?: string | null;
  rule?: string | null;
  assigned_at?: string | null;
  due_at?: string | null;
  reassignment?: string | null;
  to_name?: string | null;
  /** An escalation's why (`max_handovers`, `no_eligible_store`), the answer that caused it (`declined`, `offer_expired`), the company's limit then, and the stores that passed it on, in order. */
  escalation?: string | null;
  cause?: string | null;
  max_handovers?: number | null;
  passed?: Array<{ store_name: string | null; state: string }> | null;
}

/** An instant as a person reads it, in the recipient's language and time zone: `6 Dec 2026, 15:40 UTC`. */
export function formatAt(locale: Locale, at: Date, zone = 'UTC'): string {
  const options: Intl.DateTimeFormatOptions = { year: 'numeric', month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit', hour12: false, timeZoneName: 'short' };
  try {
    return new Intl.DateTimeFormat(locale === 'fr' ? 'fr-FR' : 'en-GB', { ...options, timeZone: zone }).format(at);
  } catch {
    return new Intl.DateTimeFormat(locale === 'fr' ? 'fr-FR' : 'en-GB', { ...options, timeZone: 'UTC' }).format(at);
  }
}

/** Escalated: reassigned because its store let the first-response time pass. */
export const isEscalated = (about: About | null | undefined): boolean => about?.kind === 'assignment' && about.reason === 'sla_breached';

export interface Mail {
  subject: string;
  text: string;
  html: string;
}

const MAX_FIELD = 200;
const MAX_PRODUCTS = 20;

/**
 * One line of at most `max` characters: control characters (CR, LF, NUL, tabs...) and line and paragraph
 * separators become spaces, so nothing a lead says can start a header line or a new paragraph.
 */
export function oneLine(value: unknown, max = MAX_FIELD): string {
  const s = String(value ?? '').replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g, ' ').replace(/\s+/g, ' ').trim();
  return s.length > max ? `${s.slice(0, max - 1)}…` : s;
}

export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** The products of a lead's quote requests (free-form items, SPEC 4.3): a name (or SKU) and a quantity. */
export function productsOf(lists: unknown): LeadSummary['products'] {
  const out: LeadSummary['products'] = [];
  for (const list of Array.isArray(lists) ? lists : []) {
    for (const item of Array.isArray(list) ? list : []) {
      if (out.length >= MAX_PRODUCTS || typeof item !== 'object' || item === null) continue;
      const p = item as Record<string, unknown>;
      const label = [p.name, p.sku, p.external_id].find((v) => typeof v === 'string' || typeof v === 'number');
      if (label === undefined) continue;
      const quantity = typeof p.quantity === 'number' || typeof p.quantity === 'string' ? oneLine(p.quantity, 20) : null;
      out.push({ name: oneLine(label), quantity: quantity || null });
    }
  }
  return out;
}

const TEXT = {
  en: {
    subject: (name: string) => `New lead: ${name}`,
    digestSubject: (n: number) => (n === 1 ? '1 new lead for your store' : `${n} new leads for your stores`),
    intro: (store: string | null) => (store ? `A new lead was assigned to ${store}.` : 'A new lead was assigned to your store.'),
    digestIntro: (n: number) => (n === 1 ? 'This lead was assigned to your store since the last digest:' : `These ${n} leads were assigned to your stores since the last digest:`),
    unnamed: 'Unnamed lead',
    name: 'Name',
    email: 'E-mail',
    phone: 'Phone',
    address: 'Location',
    products: 'Products asked for',
    quantity: 'quantity',
    open: 'Open the lead',
    answer: 'Accept or decline',
    why: 'You receive this e-mail because you asked to hear about new leads for your stores.',
    unsubscribe: 'Unsubscribe from these e-mails',
    none: 'none given',
    slaSubject: (name: string) => `Lead not answered in time: ${name}`,
    slaIntro: (store: string | null, due: string) => `${store ?? 'The store'} did not answer this lead within its first-response time (due ${due}).`,
    slaWhy: 'You receive this e-mail because you oversee this store.',
    escalatedSubject: (name: string) => `Escalated lead: ${name}`,
    assignment: 'What happened',
    breachDigestSubject: (n: number) => (n === 1 ? '1 lead not answered in time' : `${n} leads not answered in time`),
    breachDigestIntro: (n: number) => (n === 1 ? 'This lead was not answered within its first-response time:' : `These ${n} leads were not answered within their first-response time:`),
    assigned: (store: string, at: string) => `A new lead was assigned to ${store} on ${at}.`,
    routed: (store: string, at: string) => `A new lead was assigned to ${store} by the routing rules on ${at}.`,
    reassigned: (from: string, store: string, at: string) => `A lead was reassigned from ${from} to ${store} on ${at}.`,
    escalated: (from: string, store: string, at: string) => `Escalated: ${from} did not answer this lead within its first-response time, so it was reassigned to ${store} on ${at}.`,
    declined: (from: string, store: string, at: string) => `${from} declined this lead, so it was handed over to ${store} on ${at}.`,
    lapsed: (from: string, store: string, at: string) => `${from} did not accept this lead in time, so it was handed over to ${store} on ${at}.`,
    reminderSubject: (name: string) => `Reminder: answer this lead in time: ${name}`,
    reminderIntro: (store: string, due: string) => `${store} has not answered this lead yet. Its first-response time runs out on ${due}.`,
    aStore: 'a store',
    yourStore: 'your store',
    breachThen: (r: string | null | undefined, to: string | null) =>
      r === 'reassigned' ? `The lead was reassigned to ${to ?? 'another store'}.` : r === 'no_eligible_store' ? 'No other store could take it: it stays where it is.'
        : r === 'escalated' ? 'It was escalated: it stays where it is until it is reassigned.' : '',
    escalationSubject: (name: string) => `Escalated lead to reassign: ${name}`,
    times: (n: number) => (n === 1 ? 'once' : `${n} times`),
    declinedTimes: (n: string) => `declined ${n}`,
    lapsedTimes: (n: string) => `not accepted in time ${n}`,
    and: ' and ',
    escalatedMax: (at: string, what: string, max: number) =>
      `This lead was escalated to you on ${at}: it was ${what}, the company's maximum of ${max} hand-over${max === 1 ? '' : 's'}, so it was not handed to another store.`,
    escalatedNone: (at: string, what: string) => `This lead was escalated to you on ${at}: it was ${what}, and no other store can take it.`,
    passedBy: (list: string) => `By: ${list}.`,
    passedDeclined: 'declined',
    passedLapsed: 'not accepted in time',
    stays: (store: string) => `It stays with ${store}, with no open offer: it needs reassigning to a store.`,
    escalationWhy: 'You receive this e-mail because escalated leads of this store come to you to reassign.',
    escalationDigestSubject: (n: number) => (n === 1 ? '1 more escalated lead to reassign' : `${n} more escalated leads to reassign`),
    escalationDigestIntro: (n: number) =>
      n === 1 ? 'This lead was also escalated in the last hour: no store took it, and it needs reassigning.' : `These ${n} leads were also escalated in the last hour: no store took them, and they need reassigning.`,
  },
  fr: {
    subject: (name: string) => `Nouveau contact : ${name}`,
    digestSubject: (n: number) => (n === 1 ? '1 nouveau contact pour votre magasin' : `${n} nouveaux contacts pour vos magasins`),
    intro: (store: string | null) => (store ? `Un nouveau contact a été attribué à ${store}.` : 'Un nouveau contact a été attribué à votre magasin.'),
    digestIntro: (n: number) => (n === 1 ? 'Ce contact a été attribué à votre magasin depuis le dernier récapitulatif :' : `Ces ${n} contacts ont été attribués à vos magasins depuis le dernier récapitulatif :`),
    unnamed: 'Contact sans nom',
    name: 'Nom',
    email: 'E-mail',
    phone: 'Téléphone',
    address: 'Adresse',
    products: 'Produits demandés',
    quantity: 'quantité',
    open: 'Voir le contact',
    answer: 'Accepter ou refuser',
    why: 'Vous recevez cet e-mail car vous avez demandé à être prévenu des nouveaux contacts de vos magasins.',
    unsubscribe: 'Se désabonner de ces e-mails',
    none: 'non renseigné',
    slaSubject: (name: string) => `Contact sans réponse dans les délais : ${name}`,
    slaIntro: (store: string | null, due: string) => `${store ?? 'Le magasin'} n'a pas répondu à ce contact dans le délai de première réponse (échéance ${due}).`,
    slaWhy: 'Vous recevez cet e-mail car vous supervisez ce magasin.',
    escalatedSubject: (name: string) => `Contact escaladé : ${name}`,
    assignment: 'Ce qui s\'est passé',
    breachDigestSubject: (n: number) => (n === 1 ? '1 contact sans réponse dans les délais' : `${n} contacts sans réponse dans les délais`),
    breachDigestIntro: (n: number) => (n === 1 ? "Ce contact n'a pas reçu de réponse dans le délai de première réponse :" : `Ces ${n} contacts n'ont pas reçu de réponse dans le délai de première réponse :`),
    assigned: (store: string, at: string) => `Un nouveau contact a été attribué à ${store} le ${at}.`,
    routed: (store: string, at: string) => `Un nouveau contact a été attribué à ${store} par les règles d'attribution le ${at}.`,
    reassigned: (from: string, store: string, at: string) => `Un contact a été réattribué de ${from} à ${store} le ${at}.`,
    escalated: (from: string, store: string, at: string) => `Escaladé : ${from} n'a pas répondu à ce contact dans le délai de première réponse, il a donc été réattribué à ${store} le ${at}.`,
    declined: (from: string, store: string, at: string) => `${from} a refusé ce contact, il a donc été transmis à ${store} le ${at}.`,
    lapsed: (from: string, store: string, at: string) => `${from} n'a pas accepté ce contact à temps, il a donc été transmis à ${store} le ${at}.`,
    reminderSubject: (name: string) => `Rappel : répondez à ce contact à temps : ${name}`,
    reminderIntro: (store: string, due: string) => `${store} n'a pas encore répondu à ce contact. Le délai de première réponse expire le ${due}.`,
    aStore: 'un magasin',
    yourStore: 'votre magasin',
    breachThen: (r: string | null | undefined, to: string | null) =>
      r === 'reassigned' ? `Le contact a été réattribué à ${to ?? 'un autre magasin'}.` : r === 'no_eligible_store' ? "Aucun autre magasin ne pouvait le prendre : il reste où il est."
        : r === 'escalated' ? "Il a été escaladé : il reste où il est jusqu'à sa réattribution." : '',
    escalationSubject: (name: string) => `Contact escaladé à réattribuer : ${name}`,
    times: (n: number) => (n === 1 ? 'une fois' : `${n} fois`),
    declinedTimes: (n: string) => `refusé ${n}`,
    lapsedTimes: (n: string) => `non accepté à temps ${n}`,
    and: ' et ',
    escalatedMax: (at: string, what: string, max: number) =>
      `Ce contact vous a été escaladé le ${at} : il a été ${what}, le maximum de ${max} transmission${max > 1 ? 's' : ''} de l'entreprise, il n'a donc pas été transmis à un autre magasin.`,
    escalatedNone: (at: string, what: string) => `Ce contact vous a été escaladé le ${at} : il a été ${what}, et aucun autre magasin ne peut le prendre.`,
    passedBy: (list: string) => `Par : ${list}.`,
    passedDeclined: 'refusé',
    passedLapsed: 'non accepté à temps',
    stays: (store: string) => `Il reste attribué à ${store}, sans offre ouverte : il doit être réattribué à un magasin.`,
    escalationWhy: 'Vous recevez cet e-mail car les contacts escaladés de ce magasin vous sont confiés pour réattribution.',
    escalationDigestSubject: (n: number) => (n === 1 ? '1 autre contact escaladé à réattribuer' : `${n} autres contacts escaladés à réattribuer`),
    escalationDigestIntro: (n: number) =>
      n === 1 ? "Ce contact a aussi été escaladé dans l'heure : aucun magasin ne l'a pris, il doit être réattribué." : `Ces ${n} contacts ont aussi été escaladés dans l'heure : aucun magasin ne les a pris, ils doivent être réattribués.`,
  },
} satisfies Record<Locale, unknown>;

/** The sentence telling an assignment as it was (its store, time, and why), or null without one. */
export function assignmentSentence(locale: Locale, about: About | null | undefined, zone = 'UTC'): string | null {
  const t = TEXT[locale];
  if (about?.kind === 'breach' && about.due_at) {
    const then = t.breachThen(about.reassignment, about.to_name ? oneLine(about.to_name) : null);
    return `${t.slaIntro(about.store_name ? oneLine(about.store_name) : null, formatAt(locale, new Date(about.due_at), zone))}${then ? ` ${then}` : ''}`;
  }
  if (!about || about.kind !== 'assignment' || !about.at) return null;
  const store = about.store_name ? oneLine(about.store_name) : t.yourStore;
  const from = about.from_name ? oneLine(about.from_name) : t.aStore;
  const at = formatAt(locale, new Date(about.at), zone);
  if (about.reason === 'sla_breached') return t.escalated(from, store, at);
  if (about.reason === 'declined') return t.declined(from, store, at);
  if (about.reason === 'offer_expired') return t.lapsed(from, store, at);
  if (about.from_id) return t.reassigned(from, store, at);
  return about.rule ? t.routed(store, at) : t.assigned(store, at);
}

function leadRows(t: (typeof TEXT)[Locale], lead: LeadSummary, locale?: Locale, zone?: string): Array<[string, string[]]> {
  const products = lead.products.map((p) => (p.quantity ? `${p.name} (${t.quantity} ${p.quantity})` : p.name));
  const told = locale ? assignmentSentence(locale, lead.about, zone) : null;
  return [
    ...(told ? ([[t.assignment, [told]]] as Array<[string, string[]]>) : []),
    [t.name, [lead.name || t.unnamed]],
    [t.email, lead.emails],
    [t.phone, lead.phones],
    [t.address, lead.address ? [lead.address] : []],
    [t.products, products],
  ];
}

function leadText(t: (typeof TEXT)[Locale], lead: LeadSummary, locale?: Locale, zone?: string): string {
  const lines = leadRows(t, lead, locale, zone).map(([label, values]) => `${label}: ${values.length ? values.join(', ') : t.none}`);
  return [...lines, `${t.open}: ${lead.url}`, ...(lead.pageUrl ? [`${t.answer}: ${lead.pageUrl}`] : [])].join('\n');
}

function leadHtml(t: (typeof TEXT)[Locale], lead: LeadSummary, locale?: Locale, zone?: string): string {
  const rows = leadRows(t, lead, locale, zone)
    .map(
      ([label, values]) =>
        `<tr><th align="left" style="padding:2px 12px 2px 0">${escapeHtml(label)}</th><td>${values.length ? values.map(escapeHtml).join('<br>') : `<i>${escapeHtml(t.none)}</i>`}</td></tr>`,
    )
    .join('');
  const page = lead.pageUrl ? ` · <a href="${escapeHtml(lead.pageUrl)}">${escapeHtml(t.answer)}</a>` : '';
  return `<table>${rows}</table><p><a href="${escapeHtml(lead.url)}">${escapeHtml(t.open)}</a>${page}</p>`;
}

function page(locale: Locale, body: string, unsubscribeUrl: string, why: string = TEXT[locale].why): string {
  const t = TEXT[locale];
  return (
    `<!doctype html><html lang="${locale}"><head><meta charset="utf-8"></head><body style="font-family:sans-serif">` +
    body +
    `<hr><p style="color:#666;font-size:12px">${escapeHtml(why)} <a href="${escapeHtml(unsubscribeUrl)}">${escapeHtml(t.unsubscribe)}</a></p></body></html>`
  );
}

/** The mail telling one recipient about one lead assigned to a store of theirs. */
export function leadAssignedMail(locale: Locale, lead: LeadSummary, unsubscribeUrl: string, zone = 'UTC'): Mail {
  const t = TEXT[locale];
  const store = lead.storeName ? oneLine(lead.storeName) : null;
  // The assignment as it was (its own store and time), told once: as the intro, not again as a row.
  const intro = assignmentSentence(locale, lead.about, zone) ?? t.intro(store);
  const own = { ...lead, about: null };
  return {
    subject: oneLine((isEscalated(lead.about) ? t.escalatedSubject : t.subject)(lead.name || t.unnamed)),
    text: `${intro}\n\n${leadText(t, own)}\n\n-- \n${t.why}\n${t.unsubscribe}: ${unsubscribeUrl}\n`,
    html: page(locale, `<p>${escapeHtml(intro)}</p>${leadHtml(t, own)}`, unsubscribeUrl),
  };
}

/** The daily digest: every lead assigned to the recipient's stores since the last one. */
export function digestMail(locale: Locale, leads: LeadSummary[], unsubscribeUrl: string, zone = 'UTC', topic: Topic = 'lead_assigned'): Mail {
  const t = TEXT[locale];
  // A digest of breaches (the daily one, or those past the hourly cap) reads as breaches, for those who oversee
  // the stores; one of escalations (past the hourly cap) as escalations to reassign.
  const [intro, why, subject] =
    topic === 'sla_breached' ? [t.breachDigestIntro(leads.length), t.slaWhy, t.breachDigestSubject(leads.length)]
    : topic === 'lead_escalated' ? [t.escalationDigestIntro(leads.length), t.escalationWhy, t.escalationDigestSubject(leads.length)]
    : [t.digestIntro(leads.length), t.why, t.digestSubject(leads.length)];
  return {
    subject,
    text: `${intro}\n\n${leads.map((l) => leadText(t, l, locale, zone)).join('\n\n')}\n\n-- \n${why}\n${t.unsubscribe}: ${unsubscribeUrl}\n`,
    html: page(locale, `<p>${escapeHtml(intro)}</p>${leads.map((l) => leadHtml(t, l, locale, zone)).join('<hr>')}`, unsubscribeUrl, why),
  };
}

/** The mail telling an admin or territory manager that a store let a lead's first-response time pass. */
export function slaBreachedMail(locale: Locale, lead: LeadSummary, storeName: string | null, dueAt: Date, unsubscribeUrl: string, about?: About | null): Mail {
  const t = TEXT[locale];
  const due = dueAt.toISOString().replace('T', ' ').slice(0, 16) + ' UTC';
  // What became of the lead (reassigned, or no store left), as the breach recorded it.
  const then = t.breachThen(about?.reassignment, about?.to_name ? oneLine(about.to_name) : null);
  const intro = `${t.slaIntro(storeName ? oneLine(storeName) : null, due)}${then ? ` ${then}` : ''}`;
  return {
    subject: oneLine(t.slaSubject(lead.name || t.unnamed)),
    text: `${intro}\n\n${leadText(t, lead)}\n\n-- \n${t.slaWhy}\n${t.unsubscribe}: ${unsubscribeUrl}\n`,
    html: page(locale, `<p>${escapeHtml(intro)}</p>${leadHtml(t, lead)}`, unsubscribeUrl, t.slaWhy),
  };
}

/** The reminder to a store's staff before a lead's first-response time runs out (once per timer). */
export function slaReminderMail(locale: Locale, lead: LeadSummary, unsubscribeUrl: string, zone = 'UTC'): Mail {
  const t = TEXT[locale];
  const about = lead.about;
  const store = about?.store_name ? oneLine(about.store_name) : t.yourStore;
  const intro = t.reminderIntro(store, about?.due_at ? formatAt(locale, new Date(about.due_at), zone) : '?');
  const own = { ...lead, about: null };
  return {
    subject: oneLine(t.reminderSubject(lead.name || t.unnamed)),
    text: `${intro}\n\n${leadText(t, own)}\n\n-- \n${t.why}\n${t.unsubscribe}: ${unsubscribeUrl}\n`,
    html: page(locale, `<p>${escapeHtml(intro)}</p>${leadHtml(t, own)}`, unsubscribeUrl),
  };
}

/**
 * The mail telling a territory manager (else a company admin) that a lead was escalated: why (declined or
 * not accepted in time how many times, the company's maximum reached, or no store left), by which stores,
 * and that it waits at its last store for someone to reassign it.
 */
export function leadEscalatedMail(locale: Locale, lead: LeadSummary, unsubscribeUrl: string, zone = 'UTC'): Mail {
  const t = TEXT[locale];
  const about = lead.about ?? {};
  const passed = Array.isArray(about.passed) ? about.passed : [];
  const declined = passed.filter((p) => p.state === 'declined').length;
  const lapsed = passed.filter((p) => p.state === 'expired').length;
  const what = [declined ? t.declinedTimes(t.times(declined)) : null, lapsed ? t.lapsedTimes(t.times(lapsed)) : null].filter(Boolean).join(t.and);
  const at = formatAt(locale, about.at ? new Date(about.at) : new Date(), zone);
  const store = about.store_name ? oneLine(about.store_name) : t.aStore;
  const cause = about.escalation === 'max_handovers' ? t.escalatedMax(at, what, Number(about.max_handovers ?? passed.length - 1)) : t.escalatedNone(at, what);
  const by = passed.length
    ? t.passedBy(passed.map((p) => `${p.store_name ? oneLine(p.store_name) : t.aStore} (${p.state === 'declined' ? t.passedDeclined : t.passedLapsed})`).join(', '))
    : '';
  const intro = [cause, by, t.stays(store)].filter(Boolean);
  const own = { ...lead, about: null };
  return {
    subject: oneLine(t.escalationSubject(lead.name || t.unnamed)),
    text: `${intro.join('\n')}\n\n${leadText(t, own)}\n\n-- \n${t.escalationWhy}\n${t.unsubscribe}: ${unsubscribeUrl}\n`,
    html: page(locale, intro.map((line) => `<p>${escapeHtml(line)}</p>`).join('') + leadHtml(t, own), unsubscribeUrl, t.escalationWhy),
  };
}
