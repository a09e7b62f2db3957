// The pure parts of offers (docs/lead-loop.md): who answers for a store (the lead policy's answerOffer)
// and a decline's reason and note.
import { can, about } from '../../src/access/policy';
import type { Caller } from '../../src/auth/caller';
import { Role } from '../../src/modules/user/role';
import { answersForStore, leadPolicy, type OfferStore } from '../../src/modules/lead/lead.policy';
import { checkDecline } from '../../src/modules/lead/lead-offer.service';

const store: OfferStore = { id: 'crl-1', retailerLocationId: 'rl-1', retailerId: 'r-1' };
const caller = (role: Role, extra: Partial<Caller> = {}): Caller => ({
  userId: 'u',
  role,
  companyId: 'c-1',
  retailerId: null,
  territoryId: null,
  companyRetailerIds: [],
  companyRetailerLocationIds: [],
  retailerLocationIds: [],
  ...extra,
});

describe('who answers for a store', () => {
  test.each([
    ['a location user of the store', caller(Role.CompanyLocationUser, { companyRetailerLocationIds: ['crl-1'] }), true],
    ['a sales associate of the store', caller(Role.CompanySalesAssociate, { companyRetailerLocationIds: ['crl-0', 'crl-1'] }), true],
    ['a location user of another store', caller(Role.CompanyLocationUser, { companyRetailerLocationIds: ['crl-2'] }), false],
    ['a store manager of its retailer location', caller(Role.RetailerStoreManager, { companyId: null, retailerId: 'r-1', retailerLocationIds: ['rl-1'] }), true],
    ['a store manager of another location', caller(Role.RetailerStoreManager, { companyId: null, retailerId: 'r-1', retailerLocationIds: ['rl-2'] }), false],
    ['an admin of its retailer', caller(Role.RetailerAdmin, { companyId: null, retailerId: 'r-1' }), true],
    ['an admin of another retailer', caller(Role.RetailerAdmin, { companyId: null, retailerId: 'r-2' }), false],
    ['the company admin', caller(Role.CompanyAdmin), false],
    ['a territory manager', caller(Role.CompanyTerritoryManager, { territoryId: 't-1' }), false],
    ['a retailer manager', caller(Role.CompanyRetailerManager, { companyRetailerIds: ['cr-1'] }), false],
    ['the platform operator', caller(Role.PlatformOperator, { companyId: null }), false],
  ])('%s: %s', (_name, who, expected) => {
    expect(answersForStore(who, store)).toBe(expected);
    expect(can(who, 'answerOffer', about(leadPolicy, { offerStore: store }))).toBe(expected);
  });

  test('a store without a retailer location has no store managers; no store, nobody answers', () => {
    const bare = { ...store, retailerLocationId: null };
    expect(answersForStore(caller(Role.RetailerStoreManager, { retailerLocationIds: ['rl-1'] }), bare)).toBe(false);
    expect(can(caller(Role.CompanyLocationUser, { companyRetailerLocationIds: ['crl-1'] }), 'answerOffer', about(leadPolicy, {}))).toBe(false);
    expect(can(null, 'answerOffer', about(leadPolicy, { offerStore: store }))).toBe(false);
  });
});

describe('a decline', () => {
  const fields = (f: () => unknown) => {
    try {
      f();
    } catch (e: any) {
      return e.details.map((d: any) => `${d.field}:${d.code}`);
    }
    return [];
  };

  test('a known reason, the note trimmed (blank is none)', () => {
    expect(checkDecline('too_far', undefined)).toEqual({ reason: 'too_far', note: null });
    expect(checkDecline('duplicate', '  same as #12  ')).toEqual({ reason: 'duplicate', note: 'same as #12' });
    expect(checkDecline('no_capacity', '   ')).toEqual({ reason: 'no_capacity', note: null });
    expect(checkDecline('other', 'x'.repeat(500)).note).toHaveLength(500);
  });

  test('422s: no reason, an unknown or upper-case one, other without a note, a long note, a note that is not text', () => {
    expect(fields(() => checkDecline(undefined, null))).toEqual(['reason:blank']);
    expect(fields(() => checkDecline('', null))).toEqual(['reason:blank']);
    expect(fields(() => checkDecline('TOO_FAR', null))).toEqual(['reason:inclusion']);
    expect(fields(() => checkDecline(3, null))).toEqual(['reason:inclusion']);
    expect(fields(() => checkDecline('other', ' '))).toEqual(['note:blank']);
    expect(fields(() => checkDecline('other', null))).toEqual(['note:blank']);
    expect(fields(() => checkDecline('too_far', 'x'.repeat(501)))).toEqual(['note:too_long']);
    expect(fields(() => checkDecline('too_far', { text: 'hi' }))).toEqual(['note:invalid']);
  });
});
