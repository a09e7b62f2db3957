import { Validator } from '../../src/errors';
import {
  checkActivityData,
  checkActivityType,
  checkCountry,
  checkEmail,
  containsNul,
  duplicateKeys,
  foldMessageAndBody,
  parsePhone,
} from '../../src/modules/lead/lead.rules';

const errors = (fn: (v: Validator) => unknown) => {
  const v = new Validator();
  fn(v);
  return v.details.map((d) => `${d.field}:${d.code}`);
};

describe('lead rules', () => {
  test('emails are trimmed, lower-cased and checked', () => {
    const v = new Validator();
    expect(checkEmail('  Jane.Doe+x@Example.COM ', 'emails.email', v)).toBe('jane.doe+x@example.com');
    expect(errors((w) => checkEmail('', 'emails.email', w))).toEqual(['emails.email:blank']);
    expect(errors((w) => checkEmail('jane@', 'emails.email', w))).toEqual(['emails.email:invalid']);
    expect(errors((w) => checkEmail('a b@example.com', 'emails.email', w))).toEqual(['emails.email:invalid']);
  });

  test('phones parse by country to E.164; a + prefix names its own country', () => {
    expect(parsePhone('(503) 555-0123', 'US')).toEqual({ e164: '+15035550123', country: 'US' });
    expect(parsePhone('020 7946 0958', 'GB')).toEqual({ e164: '+442079460958', country: 'GB' });
    expect(parsePhone('+44 20 7946 0958', 'US')).toEqual({ e164: '+442079460958', country: 'GB' });
    expect(parsePhone('12', 'US')).toBeNull();
    expect(parsePhone('call me', 'US')).toBeNull();
  });

  test('country codes: blank is US, case-insensitive, unknown is invalid', () => {
    const v = new Validator();
    expect(checkCountry(undefined, 'c', v)).toBe('US');
    expect(checkCountry('gb', 'c', v)).toBe('GB');
    expect(errors((w) => checkCountry('XX', 'phone_numbers.country_code', w))).toEqual(['phone_numbers.country_code:invalid']);
  });

  test('activity types are the SPEC 2.2 list; absent is a Note', () => {
    const v = new Validator();
    expect(checkActivityType(undefined, v)).toBe('LeadActivity::Note');
    expect(checkActivityType('LeadActivity::Purchase', v)).toBe('LeadActivity::Purchase');
    expect(errors((w) => checkActivityType('Purchase', w))).toEqual(['type:invalid']);
  });

  test('quote request data', () => {
    const q = 'LeadActivity::QuoteRequest' as const;
    expect(errors((w) => checkActivityData(q, { products: [{ name: 'A', extra: 1 }] }, w))).toEqual([]);
    expect(errors((w) => checkActivityData(q, null, w))).toEqual(['data.products:blank']);
    expect(errors((w) => checkActivityData(q, { products: {} }, w))).toEqual(['data.products:blank']);
    expect(errors((w) => checkActivityData(q, { products: [null] }, w))).toEqual(['data.products:invalid']);
    expect(errors((w) => checkActivityData('LeadActivity::Note', null, w))).toEqual([]);
    expect(errors((w) => checkActivityData('LeadActivity::Note', [1], w))).toEqual(['data:invalid']);
  });

  test('message and body fold into data without overwriting it', () => {
    expect(foldMessageAndBody(undefined, 'm', undefined)).toEqual({ message: 'm' });
    expect(foldMessageAndBody({ message: 'kept' }, 'm', 'b')).toEqual({ message: 'kept', body: 'b' });
    expect(foldMessageAndBody({ a: 1 }, undefined, undefined)).toEqual({ a: 1 });
  });

  test('NUL characters are found anywhere in a value', () => {
    expect(containsNul({ a: [{ b: 'x\u0000' }] })).toBe(true);
    expect(containsNul({ ['k\u0000']: 1 })).toBe(true);
    expect(containsNul({ a: [1, 'ok', null] })).toBe(false);
  });

  test('duplicate lock keys are per owner, unique and sorted (a stable lock order)', () => {
    expect(duplicateKeys('o', ['b@x.io', 'a@x.io', 'a@x.io'], ['+1'])).toEqual(['lead:o:email:a@x.io', 'lead:o:email:b@x.io', 'lead:o:phone:+1']);
  });
});
