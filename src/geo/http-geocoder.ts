import { AnswerBudget } from '../answer-budget';
import { logger } from '../logger';
import { flushTiny } from '../limits';
import type { AddressQuery, Coordinates, Geocoder } from './geocoder';

const present = (s: string | null | undefined): s is string => typeof s === 'string' && s.trim() !== '';

/**
 * The largest answer read: a Nominatim answer for `limit=1` is about 1 kB. A larger one (a hostile or
 * broken server's endless body) is cut off there instead of being read into memory until the timeout.
 */
export const MAX_GEOCODER_ANSWER_BYTES = 256 * 1024;
/**
 * The geocoder's answers a process reads at once, together: sixteen of the largest. Each write that
 * geocodes reads one answer, and many organisations' writes run at once (each organisation at most
 * `ORGANISATION_CONCURRENCY`); past this sum the largest answer being read is cut off (`AnswerBudget`).
 */
export const MAX_GEOCODER_ANSWERS_BYTES = 16 * MAX_GEOCODER_ANSWER_BYTES;

/** The body as text, at most `max` bytes and within `budget`; a larger one is cancelled and refused. */
async function boundedText(res: Response, max: number, budget: AnswerBudget): Promise<string> {
  if (Number(res.headers.get('content-length')) > max) throw new Error(`the geocoder's answer is larger than ${max} bytes`);
  const reader = res.body?.getReader();
  if (!reader) return '';
  let cut: Error | null = null;
  const answer = budget.open((err) => {
    cut = err;
    reader.cancel(err).catch(() => undefined);
  });
  try {
    const chunks: Uint8Array[] = [];
    let read = 0;
    for (;;) {
      const { done, value } = await reader.read();
      if (cut) throw cut;
      if (done) break;
      read += value.byteLength;
      if (read > max) {
        await reader.cancel();
        throw new Error(`the geocoder's answer is larger than ${max} bytes`);
      }
      answer.add(value.byteLength);
      if (cut) throw cut;
      chunks.push(value);
    }
    return Buffer.concat(chunks).toString('utf8');
  } finally {
    answer.end();
  }
}

/**
 * A Nominatim-compatible HTTP geocoder (`GEOCODER=http`, `GEOCODER_URL`): a structured `/search` query,
 * the first hit's `lat`/`lon`. Any failure (timeout, HTTP error, unreadable or oversized answer) is null,
 * so the write that asked goes on without coordinates.
 */
export class HttpGeocoder implements Geocoder {
  private readonly endpoint: string;

  constructor(
    url: string,
    private readonly timeoutMs: number,
    private readonly fetchImpl: typeof fetch = fetch,
    private readonly answers = new AnswerBudget(MAX_GEOCODER_ANSWERS_BYTES, 'the geocoder'),
  ) {
    const u = new URL(url);
    if (!u.pathname.endsWith('/search')) u.pathname = `${u.pathname.replace(/\/+$/, '')}/search`;
    this.endpoint = u.toString();
  }

  async geocode(address: AddressQuery): Promise<Coordinates | null> {
    const params = new URLSearchParams({ format: 'jsonv2', limit: '1', addressdetails: '0' });
    const street = [address.streetLineOne, address.streetLineTwo].filter(present).join(', ');
    const parts: Array<[string, string | null | undefined]> = [
      ['street', street],
      ['city', address.city],
      ['state', address.province],
      ['postalcode', address.postalCode],
      ['country', address.country],
    ];
    let any = false;
    for (const [name, value] of parts) {
      if (present(value)) {
        params.set(name, value.trim());
        any = true;
      }
    }
    if (!any) return null;
    const url = new URL(this.endpoint);
    for (const [k, v] of params) url.searchParams.set(k, v);
    try {
      const res = await this.fetchImpl(url, {
        headers: { Accept: 'application/json', 'User-Agent': 'leadnet geocoder' },
        signal: AbortSignal.timeout(this.timeoutMs),
      });
      if (!res.ok) {
        logger.warn({ status: res.status }, 'geocoder answered with an error');
        return null;
      }
      const body: unknown = JSON.parse(await boundedText(res, MAX_GEOCODER_ANSWER_BYTES, this.answers));
      const first = Array.isArray(body) ? body[0] : null;
      const latitude = Number(first?.lat);
      const longitude = Number(first?.lon);
      if (first?.lat == null || first?.lon == null || !Number.isFinite(latitude) || !Number.isFinite(longitude)) return null;
      if (Math.abs(latitude) > 90 || Math.abs(longitude) > 180) return null;
      return { latitude: flushTiny(latitude), longitude: flushTiny(longitude) };
    } catch (err) {
      logger.warn({ err }, 'geocoder failed');
      return null;
    }
  }
}
