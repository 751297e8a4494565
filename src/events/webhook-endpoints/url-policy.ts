import { lookup } from 'node:dns/promises';
import { BlockList, isIP, isIPv4 } from 'node:net';

/**
 * Where webhooks may go (API.md §13 `WEBHOOK_ALLOW_PRIVATE_URLS`, against SSRF): the URL's
 * host must resolve only to public addresses. Checked when an endpoint is registered or
 * its URL changes, and again before every attempt, whose socket then connects to the
 * address that was checked (no second lookup a rebinding DNS server could answer
 * differently).
 */

/** Ranges no webhook may reach, by the name a refusal gives them. */
const RANGES: [category: string, family: 'ipv4' | 'ipv6', network: string, prefix: number][] = [
  ['unspecified', 'ipv4', '0.0.0.0', 8],
  ['private', 'ipv4', '10.0.0.0', 8],
  ['carrier-grade NAT', 'ipv4', '100.64.0.0', 10],
  ['loopback', 'ipv4', '127.0.0.0', 8],
  ['link-local', 'ipv4', '169.254.0.0', 16],
  ['private', 'ipv4', '172.16.0.0', 12],
  ['reserved', 'ipv4', '192.0.0.0', 24],
  ['documentation', 'ipv4', '192.0.2.0', 24],
  ['private', 'ipv4', '192.168.0.0', 16],
  ['benchmarking', 'ipv4', '198.18.0.0', 15],
  ['documentation', 'ipv4', '198.51.100.0', 24],
  ['documentation', 'ipv4', '203.0.113.0', 24],
  ['multicast', 'ipv4', '224.0.0.0', 4],
  // 240.0.0.0/4 is reserved; it ends with the broadcast address 255.255.255.255
  ['reserved', 'ipv4', '240.0.0.0', 4],
  ['unspecified', 'ipv6', '::', 128],
  ['loopback', 'ipv6', '::1', 128],
  ['discard', 'ipv6', '100::', 64],
  ['documentation', 'ipv6', '2001:db8::', 32],
  ['private', 'ipv6', 'fc00::', 7],
  ['link-local', 'ipv6', 'fe80::', 10],
  ['site-local', 'ipv6', 'fec0::', 10],
  ['multicast', 'ipv6', 'ff00::', 8],
];

const LISTS = new Map<string, BlockList>();
for (const [category, family, network, prefix] of RANGES) {
  let list = LISTS.get(category);
  if (!list) LISTS.set(category, (list = new BlockList()));
  list.addSubnet(network, prefix, family);
}

/**
 * The kind of non-public address `ip` is (`loopback`, `private`, ...), or undefined for
 * a public one. IPv6 forms that carry an IPv4 address (mapped `::ffff:a.b.c.d`,
 * compatible `::a.b.c.d`, NAT64 `64:ff9b::/96`, 6to4 `2002::/16`) are judged by it.
 */
export function forbiddenAddressKind(ip: string): string | undefined {
  const family = isIP(ip);
  if (family === 0) return 'invalid';
  const type = family === 4 ? 'ipv4' : 'ipv6';
  for (const [category, list] of LISTS) if (list.check(ip, type)) return category;
  const embedded = family === 6 ? embeddedIPv4(ip) : undefined;
  return embedded === undefined ? undefined : forbiddenAddressKind(embedded);
}

/** The IPv4 address an IPv6 address embeds, for the forms that route to one. */
function embeddedIPv4(ip: string): string | undefined {
  const words = expandIPv6(ip);
  if (!words) return undefined;
  const v4 = (high: number, low: number) =>
    [high >> 8, high & 0xff, low >> 8, low & 0xff].join('.');
  const zeros = (from: number, to: number) => words.slice(from, to).every((w) => w === 0);
  // ::ffff:a.b.c.d (mapped) and ::a.b.c.d (compatible, deprecated but routable by some stacks)
  if (zeros(0, 5) && (words[5] === 0xffff || (words[5] === 0 && words[6] !== 0))) {
    return v4(words[6], words[7]);
  }
  // 64:ff9b::a.b.c.d, the NAT64 well-known prefix
  if (words[0] === 0x64 && words[1] === 0xff9b && zeros(2, 6)) return v4(words[6], words[7]);
  // 2002:AABB:CCDD::/48, 6to4
  if (words[0] === 0x2002) return v4(words[1], words[2]);
  return undefined;
}

/** The eight 16-bit words of an IPv6 address (with `::` and a dotted IPv4 tail). */
function expandIPv6(ip: string): number[] | undefined {
  let text = ip.toLowerCase();
  const tail = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (tail && isIPv4(tail[1])) {
    const [a, b, c, d] = tail[1].split('.').map(Number);
    text = `${text.slice(0, -tail[1].length)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, rest] = text.split('::');
  const left = head ? head.split(':') : [];
  const right = rest ? rest.split(':') : [];
  const missing = 8 - left.length - right.length;
  if (rest === undefined ? left.length !== 8 : missing < 0) return undefined;
  const words = [...left, ...Array<string>(rest === undefined ? 0 : missing).fill('0'), ...right];
  return words.map((w) => parseInt(w, 16));
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

/** The form of a webhook URL: absolute http(s), no credentials. Throws UrlRefused. */
export function parseWebhookUrl(raw: string, policy: UrlPolicy): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UrlRefused('must be an absolute URL, e.g. https://example.com/webhooks');
  }
  if (url.protocol !== 'https:' && (policy.requireHttps || url.protocol !== 'http:')) {
    throw new UrlRefused(
      policy.requireHttps ? 'must be an https URL' : 'must be an http or https URL',
    );
  }
  if (url.username || url.password) {
    throw new UrlRefused('must not carry credentials; authenticate deliveries by their signature');
  }
  if (!url.hostname) throw new UrlRefused('must name a host');
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
  if (!policy.allowPrivate) {
    for (const { address } of addresses) {
      const kind = forbiddenAddressKind(address);
      if (kind !== undefined) {
        throw new UrlRefused(
          `must not point at a ${kind} address (${host} is ${address}); webhooks go to public hosts only`,
        );
      }
    }
  }
  return addresses;
}
