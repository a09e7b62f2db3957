import { backoffMs, generateSecret, openSecret, sealSecret, signatureHeader, verifySignature } from '../../src/modules/webhooks/webhook.signature';

describe('webhook signatures', () => {
  const secret = generateSecret();
  const body = '{"id":"e1","type":"lead.created"}';

  test('a receiver accepts the signature of the body within the replay window only', () => {
    const now = 1_800_000_000;
    const header = signatureHeader(secret, body, now);
    expect(header).toMatch(/^t=1800000000,v1=[0-9a-f]{64}$/);
    expect(verifySignature(secret, body, header, now + 10)).toBe(true);
    expect(verifySignature(secret, body, header, now + 301)).toBe(false);
    expect(verifySignature(secret, body + ' ', header, now)).toBe(false);
    expect(verifySignature(secret, body, header.replace('t=1800000000', 't=1800000001'), now)).toBe(false);
    expect(verifySignature(secret, body, undefined, now)).toBe(false);
    expect(verifySignature(secret, body, 'garbage', now)).toBe(false);
  });

  test('secrets are sealed with the key and opened again; without a key they are kept as written', () => {
    const sealed = sealSecret(secret, 'x'.repeat(32));
    expect(sealed).not.toContain(secret);
    expect(openSecret(sealed, 'x'.repeat(32))).toBe(secret);
    expect(() => openSecret(sealed, 'y'.repeat(32))).toThrow();
    expect(openSecret(sealSecret(secret, undefined), undefined)).toBe(secret);
  });

  test('backoff doubles from 30 s to at most an hour, with jitter in the upper half', () => {
    expect(backoffMs(1, () => 0)).toBe(15_000);
    expect(backoffMs(1, () => 1)).toBe(30_000);
    expect(backoffMs(3, () => 1)).toBe(120_000);
    expect(backoffMs(30, () => 1)).toBe(3_600_000);
    expect(backoffMs(30, () => 0)).toBe(1_800_000);
    // Enough attempts fit in 24 hours: the sum of minimum waits of 30 attempts exceeds a day.
    let total = 0;
    for (let i = 1; i <= 60; i++) total += backoffMs(i, () => 0);
    expect(total).toBeGreaterThan(24 * 3_600_000);
  });
});
