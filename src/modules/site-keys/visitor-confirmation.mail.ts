import { escapeHtml, oneLine, type Locale, type Mail } from '../notifications/notification.mail';

const TEXT = {
  en: {
    subject: (store: string | null) => (store ? `We received your request to ${store}` : 'We received your request'),
    body: (store: string | null) =>
      store ? `Thank you: your request was sent to ${store}. The store will contact you soon.` : 'Thank you: your request was sent to the store. It will contact you soon.',
    why: 'You receive this e-mail because this address was entered in a store contact form. If it was not you, ignore it: you will not hear from us again about it.',
  },
  fr: {
    subject: (store: string | null) => (store ? `Nous avons bien reçu votre demande à ${store}` : 'Nous avons bien reçu votre demande'),
    body: (store: string | null) =>
      store ? `Merci : votre demande a été transmise à ${store}. Le magasin vous contactera bientôt.` : 'Merci : votre demande a été transmise au magasin. Il vous contactera bientôt.',
    why: "Vous recevez cet e-mail parce que cette adresse a été saisie dans le formulaire de contact d'un magasin. Si ce n'était pas vous, ignorez-le : nous ne vous écrirons plus à ce sujet.",
  },
} as const;

/** The visitor's confirmation, in their language: it names the store and nothing the visitor typed. */
export function visitorConfirmationMail(locale: Locale, storeName: string | null): Mail {
  const t = TEXT[locale];
  const store = storeName ? oneLine(storeName, 100) : null;
  return {
    subject: t.subject(store),
    text: `${t.body(store)}\n\n${t.why}\n`,
    html: `<p>${escapeHtml(t.body(store))}</p><p style="color:#666;font-size:12px">${escapeHtml(t.why)}</p>`,
  };
}
