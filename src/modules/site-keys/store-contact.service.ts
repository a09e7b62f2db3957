import type { EntityManager } from '@mikro-orm/postgresql';
import { buildContext, type ContextDeps } from '../../context';
import { AppError, Validator } from '../../errors';
import { transactional } from '../../db/write';
import { isUuid } from '../../search/list';
import { LeadService } from '../lead/lead.service';
import type { LeadInput } from '../lead/lead.input';
import { ASSIGNEE_TYPE } from '../lead/lead.policy';
import { visitorCaller } from './site-key.policy';
import { altchaKeys, newChallenge, spendSolution, type AltchaKeys } from './altcha';
import { activeSiteKey, companyProducts, contactStore, insertConsent, originAllowed, queueConfirmation, type ContactStoreRow, type SiteKeyRow } from './site-key.repository';

/** The largest contact form body (bytes of its JSON). */
export const MAX_CONTACT_BYTES = 16 * 1024;
/** Field caps of the form. */
export const CONTACT_LIMITS = { name: 200, email: 254, phone: 40, message: 5000, products: 50, consentText: 2000, consentVersion: 64 } as const;
/** The lead's `source_type`. */
export const SOURCE_TYPE = 'StoreLocatorForm';
/** Countries whose visitors read French when the form names no locale. */
const FRENCH_COUNTRIES = new Set(['FR', 'MC', 'LU']);

/** A request the form refuses without saying why (wrong store, key, origin or proof: all alike). */
export class Refused extends Error {
  constructor(readonly reason: string) {
    super('refused');
  }
}

/** What passed the gate: the key and the store it may ask. */
export interface Admitted {
  siteKey: SiteKeyRow;
  store: ContactStoreRow;
}

/**
 * Visitors ask a store (docs/lead-loop.md): the challenge, the gate (site key, origin, proof-of-work) and
 * the lead the form writes through the one lead create path, acting for the store's company.
 */
export class StoreContactService {
  private keys?: Promise<AltchaKeys>;

  constructor(private readonly deps: ContextDeps) {}

  private em(): EntityManager {
    return this.deps.orm.em.fork() as EntityManager;
  }

  private altchaKeys(): Promise<AltchaKeys> {
    this.keys ??= altchaKeys(this.em(), this.deps.config).catch((e: unknown) => {
      this.keys = undefined;
      throw e;
    });
    return this.keys;
  }

  /** Whether some working key allows this origin (CORS: the preflight carries no key). */
  async knownOrigin(origin: string): Promise<boolean> {
    return originAllowed(this.em(), origin);
  }

  /** A challenge for a working site key used from one of its origins. */
  async challenge(siteKey: unknown, origin: string | null): Promise<unknown> {
    const key = await this.siteKey(siteKey, origin);
    return newChallenge(await this.altchaKeys(), this.deps.config, key.key);
  }

  private async siteKey(value: unknown, origin: string | null): Promise<SiteKeyRow> {
    if (typeof value !== 'string' || !/^pk_[A-Za-z0-9_-]{32}$/.test(value)) throw new Refused('site key');
    const key = await activeSiteKey(this.em(), value);
    if (!key) throw new Refused('site key');
    if (!origin || !key.allowed_origins.includes(origin)) throw new Refused('origin');
    return key;
  }

  /** The key, the store and the proof-of-work, each refused alike; the proof is spent here. */
  async admit(storeId: string, body: Record<string, unknown>, origin: string | null): Promise<Admitted> {
    const siteKey = await this.siteKey(body.site_key, origin);
    const store = isUuid(storeId) ? await contactStore(this.em(), storeId) : undefined;
    if (!store || store.company_id !== siteKey.company_id) throw new Refused('store');
    if (!(await spendSolution(this.em(), await this.altchaKeys(), this.deps.config, siteKey.key, body.altcha))) throw new Refused('proof-of-work');
    return { siteKey, store };
  }

  /**
   * The lead: created (or merged into the company's lead with the same e-mail or phone) as the company,
   * assigned to the store when it receives leads (else routed by the company's routing), with the
   * message as its first activity, the consent record and, when an e-mail was given, the confirmation
   * mail queued (at most one per address and hour). All in one transaction.
   */
  async submit({ siteKey, store }: Admitted, body: Record<string, unknown>): Promise<void> {
    const form = readForm(body);
    const products = await companyProducts(this.em(), store.company_id, form.productIds);
    const country = store.country && /^[A-Za-z]{2}$/.test(store.country) ? store.country.toUpperCase() : null;
    const locale = form.locale ?? (country && FRENCH_COUNTRIES.has(country) ? 'fr' : 'en');
    const input: LeadInput = {
      name: form.name,
      emails: form.email ? [{ email: form.email }] : [],
      phoneNumbers: form.phone ? [{ phoneNumber: form.phone, countryCode: country ?? undefined }] : [],
      sourceType: SOURCE_TYPE,
      sourceId: store.id,
      ...(store.receiving ? { assigneeId: store.id, assigneeType: ASSIGNEE_TYPE } : {}),
      leadActivities: [
        products.length
          ? {
              type: 'LeadActivity::QuoteRequest',
              data: { products: products.map((p) => ({ id: p.id, name: p.name })), notes: form.message, source: 'store_locator_form' },
              sourceId: store.id,
              sourceType: ASSIGNEE_TYPE,
            }
          : { type: 'LeadActivity::Note', data: { message: form.message, source: 'store_locator_form' }, sourceId: store.id, sourceType: ASSIGNEE_TYPE },
      ],
    };
    await transactional(
      this.em(),
      async (tx) => {
        const ctx = await buildContext(this.deps, undefined, visitorCaller(store.company_id));
        ctx.em = tx;
        const lead = await new LeadService(ctx).create(input);
        await insertConsent(tx, { leadId: lead.id, text: form.consent.text, version: form.consent.version, source: 'form', siteKeyId: siteKey.id });
        if (form.email) await queueConfirmation(tx, { leadId: lead.id, storeId: store.id, email: form.email, locale });
      },
      {},
      { rerun: true },
    );
  }
}

/** The form's fields, checked (422 with the contract's details). */
interface Form {
  name: string;
  email: string | null;
  phone: string | null;
  message: string;
  productIds: string[];
  locale: 'en' | 'fr' | null;
  consent: { text: string; version: string };
}

function text(value: unknown, field: string, max: number, v: Validator, required: boolean): string | null {
  if (value === undefined || value === null || (typeof value === 'string' && value.trim() === '')) {
    if (required) v.add(field, 'blank', "can't be blank");
    return null;
  }
  if (typeof value !== 'string') {
    v.add(field, 'invalid', 'must be a string');
    return null;
  }
  const trimmed = value.trim();
  if (trimmed.length > max || trimmed.includes('\u0000')) {
    v.add(field, trimmed.length > max ? 'too_long' : 'invalid', trimmed.length > max ? `is at most ${max} characters` : 'must not contain NUL characters');
    return null;
  }
  return trimmed;
}

export function readForm(body: Record<string, unknown>): Form {
  const v = new Validator();
  const name = text(body.name, 'name', CONTACT_LIMITS.name, v, true);
  const email = text(body.email, 'email', CONTACT_LIMITS.email, v, false)?.toLowerCase() ?? null;
  if (email && !/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email)) v.add('email', 'invalid', 'is not an e-mail address');
  const phone = text(body.phone, 'phone', CONTACT_LIMITS.phone, v, false);
  if (!email && !phone && !v.details.some((d) => d.field === 'email' || d.field === 'phone')) v.add('base', 'contact_required', 'needs an e-mail address or a phone number');
  const message = text(body.message, 'message', CONTACT_LIMITS.message, v, false) ?? '';
  let productIds: string[] = [];
  if (body.product_ids !== undefined && body.product_ids !== null) {
    if (!Array.isArray(body.product_ids) || body.product_ids.length > CONTACT_LIMITS.products || !body.product_ids.every(isUuid)) {
      v.add('product_ids', 'invalid', `must be a list of at most ${CONTACT_LIMITS.products} product ids`);
    } else productIds = [...new Set(body.product_ids as string[])];
  }
  const locale = body.locale === 'en' || body.locale === 'fr' ? body.locale : null;
  const consent = body.consent as Record<string, unknown> | null | undefined;
  let consentText: string | null = null;
  let consentVersion: string | null = null;
  if (!consent || typeof consent !== 'object' || Array.isArray(consent) || consent.given !== true) {
    v.add('consent.given', 'accepted', 'must be accepted');
  } else {
    consentText = text(consent.text, 'consent.text', CONTACT_LIMITS.consentText, v, true);
    consentVersion = text(consent.version, 'consent.version', CONTACT_LIMITS.consentVersion, v, true);
  }
  v.throwIfAny();
  return { name: name!, email, phone, message, productIds, locale, consent: { text: consentText!, version: consentVersion! } };
}

/** An error of the lead create that the visitor may read (422s); anything else stays an error. */
export function visitorError(e: unknown): e is AppError {
  return e instanceof AppError && e.code === 'BAD_USER_INPUT';
}
