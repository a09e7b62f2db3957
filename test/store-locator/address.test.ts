import { addressQueries, geocodeText } from '../../src/modules/store-locator/store-locator.address';
import { offlineGeocoder } from '../support/gazetteer';
import { RecordingGeocoder } from '../support/geocoder';

describe('addressQueries: what a shopper types -> geocoder queries', () => {
  test.each([
    ['a ZIP', '97205', [{ postalCode: '97205', country: 'US' }]],
    ['a ZIP+4', '97205-1234', [{ postalCode: '97205', country: 'US' }]],
    ['a postal code', 'v6e 3p3', [{ postalCode: 'V6E 3P3', country: 'CA' }]],
    ['a city', 'Seattle', [{ city: 'Seattle', province: null, streetLineOne: null, country: 'US' }, { city: 'Seattle', province: null, streetLineOne: null, country: 'CA' }]],
    ['city and state', 'Portland, OR', [{ city: 'Portland', province: 'OR', streetLineOne: null, country: 'US' }]],
    ['city and province name', 'Montréal, Québec', [{ city: 'Montréal', province: 'Québec', streetLineOne: null, country: 'CA' }]],
    ['city, province, country as a code that is also a state', 'Vancouver, BC, CA', [{ city: 'Vancouver', province: 'BC', streetLineOne: null, country: 'CA' }]],
    ['city and a state that is also a country code', 'Los Angeles, CA', [{ city: 'Los Angeles', province: 'CA', streetLineOne: null, country: 'US' }]],
    ['city and country', 'Toronto, Canada', [{ city: 'Toronto', province: null, streetLineOne: null, country: 'CA' }]],
    ['street, city, state ZIP', '1 Main St, Portland, OR 97205', [
      { postalCode: '97205', country: 'US' },
      { city: 'Portland', province: 'OR', streetLineOne: '1 Main St', country: 'US' },
    ]],
  ])('%s', (_label, text, expected) => {
    expect(addressQueries(text, ['US', 'CA'])).toEqual(expected);
  });

  test('the first place found wins; nothing found is null', async () => {
    const offline = await offlineGeocoder();
    try {
      expect(await geocodeText(offline.geocoder, 'Vancouver', ['CA', 'US'])).toEqual(expect.objectContaining({ latitude: expect.closeTo(49.25, 1) }));
      expect(await geocodeText(offline.geocoder, 'Vancouver', ['US'])).toEqual(expect.objectContaining({ latitude: expect.closeTo(45.64, 1) }));
      expect(await geocodeText(offline.geocoder, 'Nowhere at all', ['US', 'CA'])).toBeNull();
    } finally {
      await offline.close();
    }
    const recording = new RecordingGeocoder();
    expect(await geocodeText(recording, 'Nowhere', ['US', 'CA'])).toBeNull();
    expect(recording.calls.map((c) => c.country)).toEqual(['US', 'CA']);
  });
});
