import type { Messages, Lang } from './i18n';

/** The consent text's version sent with each form (bump it when the text changes). */
export const CONSENT_VERSION = 'widget-2026-12';
const MAX_PRODUCTS = 20;

export interface ContactStore {
  id: string;
  name: string;
  products: Array<{ product_id: string; name: string }>;
}

export interface ContactOptions {
  api: string;
  siteKey: string;
  lang: Lang;
  t: Messages;
  /** Makes an element (finder.ts's `el`: DOM without HTML strings). */
  el: <K extends keyof HTMLElementTagNameMap>(tag: K, attrs?: Record<string, string | boolean | null | undefined>, ...children: Array<Node | string | null | undefined | false>) => HTMLElementTagNameMap[K];
  ids: string;
}

/** The `altcha` web component as far as the form uses it. */
interface AltchaWidget extends HTMLElement {
  verify(): Promise<{ payload: string } | null>;
  reset(): void;
}

let altchaLoaded: Promise<unknown> | null = null;
/**
 * The `altcha` web component (bundled, self-hosted: no third party sees the visitor), loaded the first
 * time a visitor opens a contact form: it defines `<altcha-widget>` and its `$altcha` on the page, which
 * a page that never opens a form does not get.
 */
function loadAltcha(): Promise<unknown> {
  altchaLoaded ??= import('altcha').then(() => customElements.whenDefined('altcha-widget'));
  return altchaLoaded;
}

/**
 * "Contact this store": a button that opens a small form under the store (name, e-mail, phone, message,
 * the store's products, consent, a hidden honeypot) with the proof-of-work solved in the page, posted to
 * `POST /store_locator/{id}/leads` with the site key. Success and errors are said in the form's live status.
 */
export function contactButton(store: ContactStore, o: ContactOptions): HTMLElement {
  const { el, t } = o;
  const id = (s: string) => `${o.ids}-c-${store.id}-${s}`;
  const button = el('button', { type: 'button', class: 'ln-contact-open', 'aria-expanded': 'false', 'aria-controls': id('form') }, t.contact);
  const wrap = el('div', { class: 'ln-contact' }, button);
  let form: HTMLFormElement | null = null;
  button.addEventListener('click', () => {
    const open = button.getAttribute('aria-expanded') === 'true';
    button.setAttribute('aria-expanded', String(!open));
    if (open) {
      form?.setAttribute('hidden', '');
      return;
    }
    if (!form) {
      form = contactForm(store, o, id);
      wrap.append(form);
    }
    form.removeAttribute('hidden');
    form.querySelector<HTMLInputElement>('input[name=name]')?.focus();
  });
  return wrap;
}

function contactForm(store: ContactStore, o: ContactOptions, id: (s: string) => string): HTMLFormElement {
  const { el, t } = o;
  const field = (name: string, label: string, input: HTMLInputElement | HTMLTextAreaElement) =>
    el('div', { class: 'ln-field' }, el('label', { for: input.id }, label), input);
  const name = el('input', { id: id('name'), name: 'name', autocomplete: 'name', required: true, maxlength: '200' });
  const email = el('input', { id: id('email'), name: 'email', type: 'email', autocomplete: 'email', maxlength: '254' });
  const phone = el('input', { id: id('phone'), name: 'phone', type: 'tel', autocomplete: 'tel', maxlength: '40' });
  const message = el('textarea', { id: id('message'), name: 'message', rows: '3', maxlength: '5000' });
  const consent = el('input', { id: id('consent'), name: 'consent', type: 'checkbox', required: true });
  // The honeypot: out of sight and out of the tab order; people leave it empty, form-filling robots do not.
  const website = el('input', { id: id('website'), name: 'website', type: 'text', tabindex: '-1', autocomplete: 'off' });
  const products = store.products.slice(0, MAX_PRODUCTS).map((p) => el('input', { type: 'checkbox', name: 'product_ids', value: p.product_id, id: id(`p-${p.product_id}`) }));
  const altcha = el('altcha-widget' as any, { name: 'altcha', auto: 'off', display: 'invisible', language: o.lang }) as unknown as AltchaWidget;
  altcha.setAttribute('challenge', `${o.api.replace(/\/+$/, '')}/store_locator/challenge?site_key=${encodeURIComponent(o.siteKey)}`);
  const status = el('p', { class: 'ln-contact-status', role: 'status', 'aria-live': 'polite' });
  const submit = el('button', { type: 'submit', class: 'ln-button' }, t.contactSend);
  const form = el(
    'form',
    { id: id('form'), class: 'ln-contact-form', 'aria-label': t.contactTitle(store.name), novalidate: true },
    field('name', t.contactName, name),
    field('email', t.contactEmail, email),
    field('phone', t.contactPhone, phone),
    field('message', t.contactMessage, message),
    products.length
      ? el('fieldset', { class: 'ln-contact-products' }, el('legend', {}, t.contactProducts), ...products.map((box, i) => el('label', { for: box.id }, box, store.products[i].name)))
      : null,
    el('label', { class: 'ln-check ln-consent', for: consent.id }, consent, t.consentText),
    el('div', { class: 'ln-hp', 'aria-hidden': 'true' }, el('label', { for: website.id }, 'Website'), website),
    altcha,
    submit,
    status,
  );
  const say = (text: string, kind: 'info' | 'error' | 'done') => {
    status.textContent = text;
    status.dataset.kind = kind;
  };
  // Solved in the background as soon as the form opens; a challenge is used once, so each attempt solves a new one.
  let proof: Promise<string | null> | null = null;
  const solve = () => {
    proof = loadAltcha()
      .then(() => altcha.verify())
      .then((r) => r?.payload ?? null)
      .catch(() => null);
  };
  solve();

  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    if (!name.value.trim() || (!email.value.trim() && !phone.value.trim()) || (email.value.trim() && !email.checkValidity())) {
      say(t.contactMissing, 'error');
      (name.value.trim() ? email : name).focus();
      return;
    }
    if (!consent.checked) {
      say(t.consentMissing, 'error');
      consent.focus();
      return;
    }
    submit.disabled = true;
    say(t.contactSending, 'info');
    try {
      const payload = await proof;
      if (!payload) throw new Error('no proof');
      const res = await fetch(`${o.api.replace(/\/+$/, '')}/store_locator/${encodeURIComponent(store.id)}/leads`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
        credentials: 'omit',
        body: JSON.stringify({
          site_key: o.siteKey,
          altcha: payload,
          name: name.value.trim(),
          email: email.value.trim() || null,
          phone: phone.value.trim() || null,
          message: message.value.trim() || null,
          product_ids: products.filter((p) => p.checked).map((p) => p.value),
          locale: o.lang,
          consent: { given: true, text: t.consentText, version: CONSENT_VERSION },
          website: website.value,
        }),
      });
      if (res.status !== 202) throw new Error(String(res.status));
      form.replaceChildren(el('p', { class: 'ln-contact-done', role: 'status', tabindex: '-1' }, t.contactDone(store.name)));
      form.querySelector<HTMLElement>('.ln-contact-done')?.focus();
    } catch (err) {
      say(String((err as Error).message) === '429' ? t.contactBusy : t.contactFailed, 'error');
      submit.disabled = false;
      solve();
    }
  });
  return form;
}
