import { addressString, formatPhone, fullName } from '../../src/modules/store-locator/store-locator.format';

test('addressString: one line, blank parts left out', () => {
  expect(addressString({ street_line_one: '1 Main St', street_line_two: 'Suite 2', city: 'Portland', province: 'OR', postal_code: '97205', country: 'US' })).toBe(
    '1 Main St, Suite 2, Portland, OR 97205, US',
  );
  expect(addressString({ street_line_one: ' ', city: 'Toronto', province: null, postal_code: 'M5V 2T6', country: 'CA' })).toBe('Toronto, M5V 2T6, CA');
  expect(addressString({})).toBe('');
});

test('fullName: retailer and store, without repeating the retailer', () => {
  expect(fullName('Acme', 'Pearl District')).toBe('Acme - Pearl District');
  expect(fullName('Acme', 'Acme Pearl District')).toBe('Acme Pearl District');
  expect(fullName('Acme', 'acme')).toBe('acme');
  expect(fullName(null, 'Pearl')).toBe('Pearl');
  expect(fullName('Acme', '  ')).toBe('Acme');
  expect(fullName(null, null)).toBeNull();
});

test('formatPhone: international format, the stored text when unparseable', () => {
  expect(formatPhone('+15035550123', 'US')).toBe('+1 503 555 0123');
  expect(formatPhone('+442079460000', 'GB')).toBe('+44 20 7946 0000');
  expect(formatPhone('not a number', 'US')).toBe('not a number');
});
