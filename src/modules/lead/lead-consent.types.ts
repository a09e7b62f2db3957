import { Field, ID, InputType, ObjectType } from 'type-graphql';
import type { Validator } from '../../errors';

/** The purposes a consent record may name (the `lead_consents_purpose` check). */
export const CONSENT_PURPOSES = ['contact'] as const;
export type ConsentPurpose = (typeof CONSENT_PURPOSES)[number];

/** What a consent sent through the API may hold, as the contact form's limits. */
export const CONSENT_LIMITS = { text: 2000, version: 64, perWrite: 20 } as const;

/** docs/personal-data.md "Consent": one record of what the person agreed to. */
@ObjectType({ description: 'What the person agreed to (purpose, the exact text and its version), where, when, and its withdrawal.' })
export class LeadConsent {
  @Field(() => ID, { description: 'The consent record (UUID).' })
  id!: string;

  @Field(() => String, { description: 'What the consent is for; `contact` (the company and its stores may contact the person about the request).' })
  purpose!: string;

  @Field(() => String, { description: 'The exact text the person agreed to.' })
  text!: string;

  @Field(() => String, { description: "The text's version, as its author names it." })
  version!: string;

  @Field(() => String, { description: 'Where it was given: `form` (the store contact form), `api` or `import`.' })
  source!: string;

  @Field(() => Date, { description: 'When it was given (ISO 8601).' })
  givenAt!: Date;

  @Field(() => Date, { nullable: true, description: 'When it was withdrawn; null while it holds.' })
  withdrawnAt!: Date | null;
}

/** A consent sent with a lead (source `api`); consents are only ever added, never changed or removed by a write. */
@InputType({ description: 'A consent the person gave, recorded with source `api`. Consents are added; a write never changes or removes one (see `withdrawLeadConsent`).' })
export class LeadConsentInput {
  @Field(() => String, { nullable: true, description: 'What it is for: `contact` (the default).' })
  purpose?: string | null;

  @Field(() => String, { nullable: true, description: 'The exact text the person agreed to (required, up to 2,000 characters).' })
  text?: string | null;

  @Field(() => String, { nullable: true, description: "The text's version (required, up to 64 characters)." })
  version?: string | null;

  @Field(() => Date, { nullable: true, description: 'When it was given (ISO 8601, not in the future); default now.' })
  givenAt?: Date | null;
}

export interface NewConsent {
  purpose: ConsentPurpose;
  text: string;
  version: string;
  givenAt: Date | null;
}

/** The sent consents checked (422 on `consents[i].<field>`); `[]` when none were sent. */
export function planConsents(input: readonly LeadConsentInput[] | null | undefined, v: Validator, now = new Date()): NewConsent[] {
  if (!input) return [];
  if (input.length > CONSENT_LIMITS.perWrite) {
    v.add('consents', 'too_long', `must have at most ${CONSENT_LIMITS.perWrite} items`);
    return [];
  }
  return input.map((c, i) => {
    const at = `consents[${i}]`;
    const purpose = c.purpose ?? 'contact';
    if (!(CONSENT_PURPOSES as readonly string[]).includes(purpose)) v.add(`${at}.purpose`, 'inclusion', `must be one of: ${CONSENT_PURPOSES.join(', ')}`);
    const text = (c.text ?? '').trim();
    if (!text) v.add(`${at}.text`, 'blank', "can't be blank");
    else if (text.length > CONSENT_LIMITS.text) v.add(`${at}.text`, 'too_long', `is too long (maximum is ${CONSENT_LIMITS.text} characters)`);
    const version = (c.version ?? '').trim();
    if (!version) v.add(`${at}.version`, 'blank', "can't be blank");
    else if (version.length > CONSENT_LIMITS.version) v.add(`${at}.version`, 'too_long', `is too long (maximum is ${CONSENT_LIMITS.version} characters)`);
    const givenAt = c.givenAt ?? null;
    if (givenAt && (Number.isNaN(givenAt.getTime()) || givenAt.getTime() > now.getTime() + 60_000)) v.add(`${at}.given_at`, 'invalid', 'must be a time not in the future');
    return { purpose: purpose as ConsentPurpose, text, version, givenAt };
  });
}
