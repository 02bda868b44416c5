// The SSRF guard: subscriber URLs must be https and reach only public addresses. Checked when a URL is
// subscribed and again on every connection, on the address actually dialled (DNS rebinding).
import { lookup as dnsLookup } from 'node:dns/promises';
import { isIP, type Socket } from 'node:net';
import ipaddr from 'ipaddr.js';
import { buildConnector } from 'undici';

export type Lookup = (host: string) => Promise<{ address: string; family: number }[]>;
export const systemLookup: Lookup = (host) => dnsLookup(host, { all: true, verbatim: true });

export interface TargetPolicy {
  /** WEBHOOK_ALLOW_PRIVATE_TARGETS: http and private addresses allowed (development and tests only). */
  allowPrivate: boolean;
  lookup?: Lookup | undefined;
}

/**
 * An IPv6 address in hexadecimal only, as the WHATWG URL parser writes it: ipaddr.js reads a dotted tail such as
 * `::8.8.8.8` as if it were `::ffff:8.8.8.8`. Undefined for what no URL could hold (zone ids).
 */
function canonicalV6(ip: string): string | undefined {
  try {
    return new URL(`http://[${ip}]/`).hostname.slice(1, -1);
  } catch {
    return undefined;
  }
}

/** The IPv6 block IANA hands out as global unicast; everything outside it is special or unassigned. */
const GLOBAL_UNICAST_V6 = ipaddr.IPv6.parseCIDR('2000::/3');

/** Only ordinary global unicast passes: loopback, private, link-local, CGNAT, multicast, unspecified, reserved
 * and the IPv6 ranges embedding IPv4 (6to4, NAT64, IPv4-translated) are refused. IPv4-mapped IPv6 is judged as
 * IPv4. Other IPv6 must lie in 2000::/3: ipaddr.js calls `::127.0.0.1` (IPv4-compatible, `::/96`) unicast, and
 * some stacks deliver it to the IPv4 address it embeds. */
export function isPublicAddress(ip: string): boolean {
  const canonical = isIP(ip) === 6 ? canonicalV6(ip) : ip;
  if (canonical === undefined || !ipaddr.isValid(canonical)) return false;
  const address = ipaddr.process(canonical);
  if (address.range() !== 'unicast') return false;
  return address.kind() === 'ipv4' || (address as ipaddr.IPv6).match(GLOBAL_UNICAST_V6);
}

export class TargetBlockedError extends Error {
  readonly code = 'ERR_TARGET_BLOCKED';
  constructor(message: string) {
    super(message);
    this.name = 'TargetBlockedError';
  }
}

/**
 * The host as resolvers know it: no IPv6 brackets, and no trailing dot (`localhost.` is `localhost`). By hand, in
 * one pass: `/\.+$/` rescans a run of dots once per dot (CONTRACT §28).
 */
function bare(hostname: string): string {
  const start = hostname.startsWith('[') ? 1 : 0;
  let end = hostname.endsWith(']') ? hostname.length - 1 : hostname.length;
  while (end > start && hostname[end - 1] === '.') end -= 1;
  return hostname.slice(start, end);
}

/**
 * The addresses a host may be dialled at; throws TargetBlockedError when any of them is not public. A lookup
 * failure is thrown as it came (a DNS error is retried like any network error).
 */
export async function vettedAddresses(hostname: string, lookup: Lookup = systemLookup): Promise<string[]> {
  const host = bare(hostname).toLowerCase();
  if (host === 'localhost' || host.endsWith('.localhost'))
    throw new TargetBlockedError(`${host} is a loopback name`);
  const addresses = isIP(host) ? [host] : (await lookup(host)).map((a) => a.address);
  const bad = addresses.find((a) => !isPublicAddress(a));
  if (bad !== undefined) throw new TargetBlockedError(`${host} resolves to a non-public address (${bad})`);
  if (addresses.length === 0) throw Object.assign(new Error(`${host} has no address`), { code: 'ENOTFOUND' });
  return addresses;
}

const SUBSCRIBE_LOOKUP_MS = 3000;

/** What a developer whose receiver runs on their own machine does instead (CONTRACT §27). */
export const WAYS_OUT =
  '. For a receiver on your own machine, run `npm run webhooks -- listen --forward-to URL` beside the service; ' +
  'WEBHOOK_ALLOW_PRIVATE_TARGETS=true lifts this rule, for development and tests only';

/** Subscribe-time check. Returns why the URL is refused, or undefined when it is acceptable. */
export async function refuseTarget(
  raw: string,
  policy: TargetPolicy,
): Promise<{ code: 'InvalidFormat' | 'InvalidValue'; message: string } | undefined> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { code: 'InvalidFormat', message: 'must be an absolute https URL' };
  }
  const protocols = policy.allowPrivate ? ['https:', 'http:'] : ['https:'];
  if (!protocols.includes(url.protocol))
    return { code: 'InvalidValue', message: `must be an https URL${WAYS_OUT}` };
  if (url.username || url.password)
    return { code: 'InvalidValue', message: 'must not carry a user name or password' };
  if (policy.allowPrivate) return undefined;
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      vettedAddresses(url.hostname, policy.lookup),
      new Promise((_, fail) => {
        timer = setTimeout(() => fail(new Error('lookup timed out')), SUBSCRIBE_LOOKUP_MS);
      }),
    ]);
    return undefined;
  } catch (e) {
    // A name that does not resolve cannot be shown to be public, so it is refused like a private one (CONTRACT
    // §8, §13); every connection is vetted again when it is made, for names that change later.
    if ((e as { code?: string }).code !== 'ERR_TARGET_BLOCKED')
      return {
        code: 'InvalidValue',
        message: `must resolve to a public address: ${url.hostname} does not resolve`,
      };
    return {
      code: 'InvalidValue',
      message: `must reach only public addresses: ${(e as Error).message}${WAYS_OUT}`,
    };
  } finally {
    clearTimeout(timer);
  }
}

export interface ConnectorOptions extends TargetPolicy {
  /** Extra trusted CA (tests' self-signed receivers); the system CAs otherwise. */
  ca?: string | undefined;
  connectTimeoutMs: number;
}

/** An undici connector that dials only vetted addresses, keeps SNI and certificate checks on the host name,
 * and re-checks the connected peer before handing the socket over. */
export function guardedConnector(opts: ConnectorOptions): buildConnector.connector {
  const base = buildConnector({ ...(opts.ca ? { ca: opts.ca } : {}), timeout: opts.connectTimeoutMs });
  if (opts.allowPrivate) return base;
  return (o, cb) => {
    const host = bare(o.hostname);
    vettedAddresses(host, opts.lookup).then(
      ([address]) => {
        const servername = o.servername ?? (isIP(host) ? undefined : host);
        base({ ...o, hostname: address!, ...(servername ? { servername } : {}) }, (err, socket) => {
          if (err || !socket) return cb(err ?? new Error('no socket'), null);
          const peer = (socket as Socket).remoteAddress;
          if (peer && !isPublicAddress(peer)) {
            socket.destroy();
            return cb(new TargetBlockedError(`${host} connected to a non-public address (${peer})`), null);
          }
          cb(null, socket);
        });
      },
      (e: Error) => cb(e, null),
    );
  };
}
