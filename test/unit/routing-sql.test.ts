import { postalKey, routingSql, RoutingRule } from '../../src/modules/routing/routing.repository';
import { countrySpellings } from '../../src/modules/routing/routing.service';

const options = { strategies: [RoutingRule.DeliveryArea, RoutingRule.DeliveryRadius, RoutingRule.Nearest], nearestMaxDistanceMiles: 10, nearestInTerritory: true, roundRobin: false };
const target = { companyId: '00000000-0000-0000-0000-000000000001', postalCode: '97205', countries: ['US'], point: { latitude: 45, longitude: -122 }, territoryId: null };

describe('routing SQL and keys', () => {
  test('postal codes: upper case, no spaces; blank is none', () => {
    expect(postalKey(' v6b 1a1 ')).toBe('V6B1A1');
    expect(postalKey('   ')).toBeNull();
    expect(postalKey(null)).toBeNull();
  });

  test('country spellings: as written, ISO codes and English names', () => {
    expect(countrySpellings('us')).toEqual(expect.arrayContaining(['US', 'USA', 'UNITED STATES OF AMERICA', 'UNITED STATES']));
    expect(countrySpellings('Canada')).toEqual(expect.arrayContaining(['CANADA', 'CA', 'CAN']));
    expect(countrySpellings('Atlantis')).toEqual(['ATLANTIS']);
    expect(countrySpellings('  ')).toEqual([]);
  });

  test('only the rules that can apply are read, each after the ones before it found nothing', () => {
    const all = routingSql(target, options)!;
    expect(all.sql.match(/rule_\d as materialized/g)).toHaveLength(3);
    expect(all.sql).toContain('not exists (select 1 from rule_1) and not exists (select 1 from rule_2)');
    expect(all.sql.split('?').length - 1).toBe(all.bindings.length);
    // No point: only the delivery-area rule; no postal code either: nothing to run.
    const unplaced = routingSql({ ...target, point: null }, options)!;
    expect(unplaced.sql.match(/rule_\d as materialized/g)).toHaveLength(1);
    expect(routingSql({ ...target, point: null, postalCode: ' ' }, options)).toBeNull();
    // The territory restriction applies only when the lead has a territory.
    expect(all.sql).not.toContain('territory_id');
    expect(routingSql({ ...target, territoryId: '00000000-0000-0000-0000-000000000002' }, options)!.sql).toContain('e.territory_id = ?');
  });
});
