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
}

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
    why: 'You receive this e-mail because you asked to hear about new leads for your stores.',
    unsubscribe: 'Unsubscribe from these e-mails',
    none: 'none given',
    slaSubject: (name: string) => `Lead not answered in time: ${name}`,
    slaIntro: (store: string | null, due: string) => `${store ?? 'The store'} did not answer this lead within its first-response time (due ${due}).`,
    slaWhy: 'You receive this e-mail because you oversee this store.',
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
    why: 'Vous recevez cet e-mail car vous avez demandé à être prévenu des nouveaux contacts de vos magasins.',
    unsubscribe: 'Se désabonner de ces e-mails',
    none: 'non renseigné',
    slaSubject: (name: string) => `Contact sans réponse dans les délais : ${name}`,
    slaIntro: (store: string | null, due: string) => `${store ?? 'Le magasin'} n'a pas répondu à ce contact dans le délai de première réponse (échéance ${due}).`,
    slaWhy: 'Vous recevez cet e-mail car vous supervisez ce magasin.',
  },
} satisfies Record<Locale, unknown>;

function leadRows(t: (typeof TEXT)[Locale], lead: LeadSummary): Array<[string, string[]]> {
  const products = lead.products.map((p) => (p.quantity ? `${p.name} (${t.quantity} ${p.quantity})` : p.name));
  return [
    [t.name, [lead.name || t.unnamed]],
    [t.email, lead.emails],
    [t.phone, lead.phones],
    [t.address, lead.address ? [lead.address] : []],
    [t.products, products],
  ];
}

function leadText(t: (typeof TEXT)[Locale], lead: LeadSummary): string {
  const lines = leadRows(t, lead).map(([label, values]) => `${label}: ${values.length ? values.join(', ') : t.none}`);
  return [...lines, `${t.open}: ${lead.url}`].join('\n');
}

function leadHtml(t: (typeof TEXT)[Locale], lead: LeadSummary): string {
  const rows = leadRows(t, lead)
    .map(
      ([label, values]) =>
        `<tr><th align="left" style="padding:2px 12px 2px 0">${escapeHtml(label)}</th><td>${values.length ? values.map(escapeHtml).join('<br>') : `<i>${escapeHtml(t.none)}</i>`}</td></tr>`,
    )
    .join('');
  return `<table>${rows}</table><p><a href="${escapeHtml(lead.url)}">${escapeHtml(t.open)}</a></p>`;
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
export function leadAssignedMail(locale: Locale, lead: LeadSummary, unsubscribeUrl: string): Mail {
  const t = TEXT[locale];
  const store = lead.storeName ? oneLine(lead.storeName) : null;
  return {
    subject: oneLine(t.subject(lead.name || t.unnamed)),
    text: `${t.intro(store)}\n\n${leadText(t, lead)}\n\n-- \n${t.why}\n${t.unsubscribe}: ${unsubscribeUrl}\n`,
    html: page(locale, `<p>${escapeHtml(t.intro(store))}</p>${leadHtml(t, lead)}`, unsubscribeUrl),
  };
}

/** The daily digest: every lead assigned to the recipient's stores since the last one. */
export function digestMail(locale: Locale, leads: LeadSummary[], unsubscribeUrl: string): Mail {
  const t = TEXT[locale];
  return {
    subject: t.digestSubject(leads.length),
    text: `${t.digestIntro(leads.length)}\n\n${leads.map((l) => leadText(t, l)).join('\n\n')}\n\n-- \n${t.why}\n${t.unsubscribe}: ${unsubscribeUrl}\n`,
    html: page(locale, `<p>${escapeHtml(t.digestIntro(leads.length))}</p>${leads.map((l) => leadHtml(t, l)).join('<hr>')}`, unsubscribeUrl),
  };
}

/** The mail telling an admin or territory manager that a store let a lead's first-response time pass. */
export function slaBreachedMail(locale: Locale, lead: LeadSummary, storeName: string | null, dueAt: Date, unsubscribeUrl: string): Mail {
  const t = TEXT[locale];
  const due = dueAt.toISOString().replace('T', ' ').slice(0, 16) + ' UTC';
  const intro = t.slaIntro(storeName ? oneLine(storeName) : null, due);
  return {
    subject: oneLine(t.slaSubject(lead.name || t.unnamed)),
    text: `${intro}\n\n${leadText(t, lead)}\n\n-- \n${t.slaWhy}\n${t.unsubscribe}: ${unsubscribeUrl}\n`,
    html: page(locale, `<p>${escapeHtml(intro)}</p>${leadHtml(t, lead)}`, unsubscribeUrl, t.slaWhy),
  };
}
