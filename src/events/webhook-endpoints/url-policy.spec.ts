import {
  forbiddenAddressKind,
  parseWebhookUrl,
  resolveWebhookHost,
  UrlRefused,
} from './url-policy';

const OPEN = { requireHttps: false, allowPrivate: false };

describe('forbiddenAddressKind', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.8.9.10', 'loopback'],
    ['::1', 'loopback'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['fd12:3456::1', 'private'],
    ['169.254.169.254', 'link-local'],
    ['fe80::1', 'link-local'],
    ['100.64.0.1', 'carrier-grade NAT'],
    ['100.127.255.255', 'carrier-grade NAT'],
    ['224.0.0.1', 'multicast'],
    ['ff02::1', 'multicast'],
    ['0.0.0.0', 'unspecified'],
    ['::', 'unspecified'],
    ['255.255.255.255', 'broadcast'],
    ['192.0.2.1', 'reserved'],
    ['192.88.99.1', 'reserved'],
    ['3fff::1', 'reserved'],
    ['2001:db8::1', 'reserved'],
    ['2001:2::1', 'benchmarking'],
    ['2001::1', 'Teredo'],
    ['5f00::1', 'segment routing'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:a9fe:a9fe', 'link-local'],
    ['64:ff9b::10.0.0.1', 'private'],
    ['2002:c0a8:0101::1', 'private'],
    ['::ffff:0:7f00:1', 'loopback'],
    ['::7f00:1', 'loopback'],
    ['64:ff9b::a9fe:a9fe', 'link-local'],
    ['64:ff9b:1::7f00:1', 'NAT64 local-use'],
    ['64:ff9b:1::a00:1', 'NAT64 local-use'],
  ])('refuses %s as %s', (ip, kind) => {
    expect(forbiddenAddressKind(ip)).toBe(kind);
  });

  it.each([
    '93.184.215.14',
    '1.1.1.1',
    '172.32.0.1',
    '100.128.0.1',
    '2606:4700::1111',
    '::ffff:8.8.8.8',
    '64:ff9b::808:808',
    '2002:808:808::1',
  ])('accepts the public address %s', (ip) => {
    expect(forbiddenAddressKind(ip)).toBeUndefined();
  });
});

describe('parseWebhookUrl', () => {
  it('accepts http outside production and only https in production', () => {
    expect(parseWebhookUrl('http://example.com/hook', OPEN).host).toBe('example.com');
    expect(() =>
      parseWebhookUrl('http://example.com/hook', { ...OPEN, requireHttps: true }),
    ).toThrow(/https/);
    expect(
      parseWebhookUrl('https://example.com/hook', { ...OPEN, requireHttps: true }).protocol,
    ).toBe('https:');
  });

  it.each([
    'ftp://example.com/x',
    'not a url',
    '/relative',
    'https://user:pw@example.com/',
    'https://example.com:0/x',
    'http:127.0.0.1:3956/',
    'http:///127.0.0.1:3956/',
    'https:example.com/x',
  ])('refuses %s', (raw) => {
    expect(() => parseWebhookUrl(raw, OPEN)).toThrow(UrlRefused);
  });
});

describe('resolveWebhookHost', () => {
  it('refuses loopback literals and localhost unless private URLs are allowed', async () => {
    await expect(resolveWebhookHost(new URL('http://127.0.0.1:9/x'), OPEN)).rejects.toThrow(
      /loopback/,
    );
    await expect(resolveWebhookHost(new URL('http://[::1]:9/x'), OPEN)).rejects.toThrow(/loopback/);
    await expect(resolveWebhookHost(new URL('http://localhost:9/x'), OPEN)).rejects.toThrow(
      /loopback/,
    );
    await expect(
      resolveWebhookHost(new URL('http://127.0.0.1:9/x'), { ...OPEN, allowPrivate: true }),
    ).resolves.toEqual([{ address: '127.0.0.1', family: 4 }]);
  });

  it('with private URLs allowed, still refuses link-local, multicast, unspecified and reserved addresses', async () => {
    const allowPrivate = { ...OPEN, allowPrivate: true };
    for (const [url, kind] of [
      ['http://169.254.169.254/latest', 'a link-local'],
      ['http://[::ffff:a9fe:a9fe]/latest', 'a link-local'],
      ['http://224.0.0.1/x', 'a multicast'],
      ['http://0.0.0.0:3950/x', 'an unspecified'],
      ['http://192.0.2.1/x', 'a reserved'],
    ]) {
      await expect(resolveWebhookHost(new URL(url), allowPrivate)).rejects.toThrow(
        `must not point at ${kind} address`,
      );
    }
    for (const url of ['http://10.1.2.3/x', 'http://[fd12::1]/x', 'http://[::ffff:7f00:1]/x']) {
      await expect(resolveWebhookHost(new URL(url), allowPrivate)).resolves.toHaveLength(1);
    }
  });

  it('refuses a host that does not resolve', async () => {
    await expect(
      resolveWebhookHost(new URL('http://no-such-host.invalid/x'), OPEN),
    ).rejects.toThrow(/does not resolve/);
  });
});
