import dns from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * Where webhooks may go (SSRF protection). A receiver must be on the public internet: an address in a
 * private, loopback, link-local (cloud metadata at 169.254.169.254), unique-local, carrier-grade NAT,
 * multicast, reserved or unspecified range is refused, whether the URL names it or a host name
 * resolves to it, and so is an IPv6 address embedding such an IPv4 address (`embeddedIPv4`). `WEBHOOK_ALLOW_PRIVATE_URLS=true` lifts this for development and tests.
 * Address ranges are ipaddr.js's (`range()`), not a hand-written list.
 */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  const ip = ipaddr.parse(address);
  if (ip.kind() === 'ipv4') return ip.range() === 'unicast';
  const embedded = embeddedIPv4(ip as ipaddr.IPv6);
  if (embedded) return embedded.length > 0 && embedded.every((v4) => v4.range() === 'unicast');
  return ip.range() === 'unicast';
}

const v4 = (high: number, low: number) => new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]);

/**
 * The IPv4 addresses an IPv6 address carries and reaches through a translator or a tunnel, whatever
 * its spelling: IPv4-compatible `::/96`, IPv4-mapped `::ffff:0:0/96`, IPv4-translated
 * `::ffff:0:0:0/96`, NAT64 `64:ff9b::/96`, 6to4 `2002::/16` and Teredo `2001::/32` (its server and
 * its client). An empty list refuses (local-use NAT64 `64:ff9b:1::/48` names no address to check);
 * null: none embedded.
 */
function embeddedIPv4(ip: ipaddr.IPv6): ipaddr.IPv4[] | null {
  const p = ip.parts;
  const zero = (from: number, to: number) => p.slice(from, to).every((x) => x === 0);
  if (zero(0, 6) || (zero(0, 5) && p[5] === 0xffff) || (zero(0, 4) && p[4] === 0xffff && p[5] === 0)) return [v4(p[6], p[7])];
  if (p[0] === 0x64 && p[1] === 0xff9b) return zero(2, 6) ? [v4(p[6], p[7])] : [];
  if (p[0] === 0x2002) return [v4(p[1], p[2])];
  if (p[0] === 0x2001 && p[1] === 0) return [v4(p[2], p[3]), v4(~p[6] & 0xffff, ~p[7] & 0xffff)];
  return null;
}

/** Names that always mean this machine, whatever a resolver says. */
const LOCAL_NAMES = /(^|\.)localhost\.?$/i;

/** Why a URL's host may not receive webhooks (`null`: it may, as far as its text tells). */
export function refusedHost(url: URL): string | null {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (LOCAL_NAMES.test(host)) return 'must not point at this machine (localhost)';
  if (net.isIP(host) && !isPublicAddress(host)) return `must not point at a private, loopback or link-local address (${host})`;
  return null;
}

export class RefusedAddressError extends Error {
  readonly code = 'EREFUSEDADDRESS';
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | dns.LookupAddress[], family?: number) => void;
/** `dns.lookup` with every address (`all: true`). */
export type LookupFunction = (hostname: string, options: dns.LookupAllOptions, callback: (err: NodeJS.ErrnoException | null, addresses: dns.LookupAddress[]) => void) => void;

/**
 * `dns.lookup` for the delivery's connection that fails when any address of the host is not public:
 * the connection goes to an address this check saw, so a name cannot resolve to a public address here
 * and to a private one at connect time (DNS rebinding).
 */
function publicLookup(resolve: LookupFunction) {
  return (hostname: string, options: dns.LookupOptions, callback: LookupCallback): void => {
    resolve(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, []);
      const refused = addresses.find((a) => !isPublicAddress(a.address));
      if (refused) return callback(new RefusedAddressError(`${hostname} resolves to a non-public address (${refused.address})`), []);
      if (!addresses.length) return callback(Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }), []);
      if (options.all) return callback(null, addresses);
      return callback(null, addresses[0].address, addresses[0].family);
    });
  };
}

export interface PostResult {
  status: number;
  location: string | null;
}

/**
 * One POST that follows no redirect, reads no response body and gives up after `timeoutMs`; unless
 * `allowPrivate`, only to public addresses (an address in the URL, or what its host name resolves to).
 */
export function post(
  url: string,
  body: string,
  headers: Record<string, string>,
  options: { timeoutMs: number; allowPrivate: boolean; lookup?: LookupFunction },
): Promise<PostResult> {
  const target = new URL(url);
  // A name is checked by what it resolves to (`publicLookup`); an address is never looked up.
  const literal = target.hostname.replace(/^\[|\]$/g, '');
  if (!options.allowPrivate && net.isIP(literal) && !isPublicAddress(literal)) {
    return Promise.reject(new RefusedAddressError(`${literal} is not a public address`));
  }
  const client = target.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const req = client.request(
      target,
      {
        method: 'POST',
        headers: { ...headers, 'Content-Length': String(Buffer.byteLength(body)) },
        signal: AbortSignal.timeout(options.timeoutMs),
        ...(options.allowPrivate ? {} : { lookup: publicLookup(options.lookup ?? (dns.lookup as LookupFunction)) as unknown as typeof dns.lookup }),
      },
      (res) => {
        res.resume();
        res.destroy();
        resolve({ status: res.statusCode ?? 0, location: typeof res.headers.location === 'string' ? res.headers.location : null });
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}
