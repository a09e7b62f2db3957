import { countryCode, placeKey, type OfflineGeocoder } from '../../src/geo/offline-geocoder';
import { offlineGeocoder } from '../support/gazetteer';

let geocoder: OfflineGeocoder;
let close: () => Promise<void>;
beforeAll(async () => {
  ({ geocoder, close } = await offlineGeocoder());
});
afterAll(() => close());

describe('OfflineGeocoder', () => {
  test.each<[string, Record<string, string>, [number, number]]>([
    ['US ZIP centroid', { postalCode: '97205', country: 'US' }, [45.52, -122.69]],
    ['ZIP+4', { postalCode: '10001-1234', city: 'Wrong City', country: 'United States' }, [40.75, -74.0]],
    ['Canadian postal code (its FSA)', { postalCode: 'M5V 2T6', country: 'Canada' }, [43.65, -79.37]],
    ['Canadian FSA alone', { postalCode: 'k1a', country: 'CA' }, [45.42, -75.7]],
    ['postal code, no country', { postalCode: '60601' }, [41.89, -87.62]],
    ['city + state name + country name', { city: 'Portland', province: 'Oregon', country: 'USA' }, [45.52, -122.68]],
    ['same city name, other state', { city: 'Portland', province: 'ME', country: 'US' }, [43.66, -70.26]],
    ['city without a province: the most populous', { city: 'Portland', country: 'US' }, [45.52, -122.68]],
    ['accents and abbreviations', { city: 'Montreal', province: 'QC', country: 'CA' }, [45.51, -73.59]],
    ['St. = Saint', { city: 'Saint Louis', province: 'MO', country: 'US' }, [38.63, -90.2]],
    ['country inferred from the province', { city: 'Toronto', province: 'Ontario' }, [43.7, -79.42]],
    ['unknown postal code falls back to the city', { postalCode: '00000', city: 'Seattle', province: 'WA', country: 'US' }, [47.61, -122.33]],
    ['outside North America: city + country', { city: 'Munich', country: 'Germany' }, [48.14, 11.58]],
    ['French country name', { city: 'Lyon', country: 'France' }, [45.75, 4.85]],
  ])('%s', async (_label, address, [lat, lng]) => {
    const found = await geocoder.geocode(address);
    expect(found).not.toBeNull();
    expect([Math.abs(found!.latitude - lat) < 0.1, Math.abs(found!.longitude - lng) < 0.1]).toEqual([true, true]);
  });

  test.each<[string, Record<string, string | null>]>([
    ['nothing', {}],
    ['an unknown city', { city: 'Xyzzyville', country: 'US' }],
    ['a city in a known province without it', { city: 'Seattle', province: 'FL', country: 'US' }],
    ['a city with no country or province', { city: 'Portland' }],
    ['a US-looking postal code abroad', { postalCode: '10115', country: 'DE' }],
    ['an unknown country', { city: 'Portland', country: 'Freedonia' }],
    ['only a street', { streetLineOne: '1 Main St' }],
    ['blank values', { city: ' ', postalCode: '', country: null }],
  ])('%s: null', async (_label, address) => {
    expect(await geocoder.geocode(address)).toBeNull();
  });
});

test('placeKey and countryCode', () => {
  expect(placeKey('St. Jean-sur-Richelieu')).toBe('saint jean sur richelieu');
  expect(placeKey('Ste-Foy')).toBe('sainte foy');
  expect(placeKey('Mt. Vernon')).toBe('mount vernon');
  expect(countryCode('us')).toBe('US');
  expect(countryCode('U.S.A.')).toBe('US');
  expect(countryCode('CAN')).toBe('CA');
  expect(countryCode('Mexico')).toBe('MX');
  expect(countryCode('Freedonia')).toBeNull();
});

test('the ZIP and FSA centroids are read when the geocoder is made (at start), not by the first postal code of a request', () => {
  jest.isolateModules(() => {
    const centroids = require('../../src/geo/postal-centroids') as typeof import('../../src/geo/postal-centroids');
    const { OfflineGeocoder: Fresh } = require('../../src/geo/offline-geocoder') as typeof import('../../src/geo/offline-geocoder');
    expect(centroids.postalCentroidsLoaded()).toBe(false);
    new Fresh({ em: undefined as never });
    expect(centroids.postalCentroidsLoaded()).toBe(true);
  });
});
