import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';
import { HOST_NAME_MESSAGE } from '../../common/dto/uri';
import { isHost } from '../../http/input/request-target';

/**
 * Where webhooks may go (API.md §13 `WEBHOOK_ALLOW_PRIVATE_URLS`, against SSRF): the URL's
 * host must resolve only to public addresses. Checked when an endpoint is registered or
 * its URL changes, and again before every attempt, whose socket then connects to the
 * address that was checked (no second lookup a rebinding DNS server could answer
 * differently).
 */

/**
 * The address ranges, as ipaddr.js names them (its table follows IANA's special-purpose
 * registries, kept up to date there rather than here), under the name a refusal gives
 * them. Only `unicast`, what no special range holds, is public.
 */
const KIND_NAMES: Record<string, string> = {
  linkLocal: 'link-local',
  carrierGradeNat: 'carrier-grade NAT',
  uniqueLocal: 'private',
  deprecatedSiteLocal: 'site-local',
  rfc6052: 'NAT64 local-use',
  rfc6145: 'IPv4-translated',
  teredo: 'Teredo',
  amt: 'AMT',
  as112: 'AS112',
  as112v6: 'AS112',
  deprecatedOrchid: 'ORCHID',
  orchid2: 'ORCHID',
  droneRemoteIdProtocolEntityTags: 'drone remote ID',
  segmentRouting: 'segment routing',
};

/**
 * With WEBHOOK_ALLOW_PRIVATE_URLS, what API.md §13 names: loopback and private ranges.
 * Link-local (cloud metadata services), multicast, unspecified and reserved addresses
 * stay refused.
 */
const PRIVATE_KINDS = new Set(['loopback', 'private', 'carrier-grade NAT']);

/**
 * The kind of non-public address `ip` is (`loopback`, `private`, ...), or undefined for
 * a public one. IPv6 forms that carry an IPv4 address (mapped `::ffff:a.b.c.d`,
 * translated `::ffff:0:a.b.c.d`, compatible `::a.b.c.d`, NAT64 `64:ff9b::/96`, 6to4
 * `2002::/16`) are judged by it; NAT64's local-use prefix `64:ff9b:1::/48` translates
 * to whatever its network chose, so it is refused.
 */
export function forbiddenAddressKind(ip: string): string | undefined {
  if (isIP(ip) === 0) return 'invalid';
  const address = ipaddr.parse(ip);
  if (address.kind() === 'ipv6') {
    const embedded = embeddedIPv4(address as ipaddr.IPv6);
    if (embedded !== undefined) return forbiddenAddressKind(embedded);
  }
  const range = address.range();
  return range === 'unicast' ? undefined : (KIND_NAMES[range] ?? range);
}

/** The IPv4 address an IPv6 address embeds, for the forms that route to one. */
function embeddedIPv4(address: ipaddr.IPv6): string | undefined {
  const words = address.parts;
  const v4 = (high: number, low: number) =>
    [high >> 8, high & 0xff, low >> 8, low & 0xff].join('.');
  const zeros = (from: number, to: number) => words.slice(from, to).every((w) => w === 0);
  const lastWords = () => v4(words[6], words[7]);
  // ::ffff:a.b.c.d (mapped) and ::ffff:0:a.b.c.d (translated)
  if (zeros(0, 5) && words[5] === 0xffff) return lastWords();
  if (zeros(0, 4) && words[4] === 0xffff && words[5] === 0) return lastWords();
  // ::a.b.c.d (compatible: deprecated, still routed by some stacks); not :: or ::1
  if (zeros(0, 6) && words[6] !== 0) return lastWords();
  // 64:ff9b::a.b.c.d, the NAT64 well-known prefix
  if (words[0] === 0x64 && words[1] === 0xff9b && zeros(2, 6)) return lastWords();
  // 2002:AABB:CCDD::/48, 6to4
  if (words[0] === 0x2002) return v4(words[1], words[2]);
  return undefined;
}

/** Why a URL cannot be a webhook endpoint; the message completes "url ...". */
export class UrlRefused extends Error {
  override readonly name = 'UrlRefused';
}

export interface UrlPolicy {
  /** NODE_ENV=production: https only */
  requireHttps: boolean;
  /** WEBHOOK_ALLOW_PRIVATE_URLS */
  allowPrivate: boolean;
}

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

const WITH_AUTHORITY = /^[A-Za-z][A-Za-z0-9+.-]*:\/\/[^/?#]/;

/**
 * The form of a webhook URL: absolute http(s), no credentials, a real host, no fragment.
 * Throws UrlRefused.
 */
export function parseWebhookUrl(raw: string, policy: UrlPolicy): URL {
  const notAbsolute = new UrlRefused('must be an absolute URL, e.g. https://example.com/webhooks');
  // `http:host/` and `http:///host/` have no authority: not http URLs, although the
  // WHATWG parser reads a host out of them
  if (!WITH_AUTHORITY.test(raw)) throw notAbsolute;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw notAbsolute;
  }
  if (url.protocol !== 'https:' && (policy.requireHttps || url.protocol !== 'http:')) {
    throw new UrlRefused(
      policy.requireHttps ? 'must be an https URL' : 'must be an http or https URL',
    );
  }
  if (url.username || url.password) {
    throw new UrlRefused('must not carry credentials; authenticate deliveries by their signature');
  }
  if (!isHost(url.hostname)) throw new UrlRefused(HOST_NAME_MESSAGE);
  // a fragment is never sent: the stored URL would not be the one called
  if (raw.includes('#')) throw new UrlRefused('must not have a fragment: it is never sent');
  // port 0 reaches nothing: connect() fails at once, so every attempt would fail
  if (url.port === '0') throw new UrlRefused('must not name port 0');
  return url;
}

/**
 * The addresses `url`'s host resolves to, every one of them allowed by the policy; throws
 * UrlRefused naming the first that is not, or when the host does not resolve.
 */
export async function resolveWebhookHost(url: URL, policy: UrlPolicy): Promise<ResolvedAddress[]> {
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  let addresses: ResolvedAddress[];
  const literal = isIP(host);
  if (literal !== 0) {
    addresses = [{ address: host, family: literal as 4 | 6 }];
  } else {
    try {
      addresses = (await lookup(host, { all: true, verbatim: true })) as ResolvedAddress[];
    } catch {
      throw new UrlRefused(`host ${host} does not resolve`);
    }
    if (addresses.length === 0) throw new UrlRefused(`host ${host} does not resolve`);
  }
  for (const { address } of addresses) {
    const kind = forbiddenAddressKind(address);
    if (kind === undefined || (policy.allowPrivate && PRIVATE_KINDS.has(kind))) continue;
    const allowed = policy.allowPrivate ? 'public, loopback or private' : 'public';
    throw new UrlRefused(
      `must not point at ${/^[aeiou]/i.test(kind) ? 'an' : 'a'} ${kind} address (${host} is ${address}); webhooks go to ${allowed} hosts only`,
    );
  }
  return addresses;
}
