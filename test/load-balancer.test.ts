import { type LoadBalancer, nginxProgram, startLoadBalancer } from './support/load-balancer';
import { rawAnswer } from './support/raw-http';
import { ADMIN_KEY, startTestApp, type TestApp } from './support/test-app';

/**
 * deploy/nginx.conf, the load balancer of docker-compose.yml, in front of the app
 * (support/load-balancer.ts says what is changed to run it here). Needs the `nginx`
 * program (Debian's package; .ci/run installs it).
 */
const describeIfNginx = nginxProgram() ? describe : describe.skip;

describeIfNginx('the load balancer (deploy/nginx.conf; skipped unless nginx is installed)', () => {
  let api: TestApp;
  let balancer: LoadBalancer;

  beforeAll(async () => {
    api = await startTestApp();
    balancer = await startLoadBalancer(Number(new URL(api.baseUrl).port));
  });

  afterAll(async () => {
    await balancer?.stop();
    await api?.close();
  });

  /** A POST announcing `length` bytes of body that never come, through the balancer. */
  const announcing = (length: number, target: string, headers: Record<string, string> = {}) => {
    const fields = { Host: new URL(balancer.baseUrl).host, ...headers };
    return rawAnswer(
      balancer.baseUrl,
      `POST ${target} HTTP/1.1\r\n${Object.entries(fields)
        .map(([name, value]) => `${name}: ${value}\r\n`)
        .join('')}Content-Type: application/json\r\nContent-Length: ${length}\r\n` +
        `Connection: close\r\n\r\n`,
    );
  };

  /** The API's own 413 for a body over its 1 MiB, which the balancer lets through. */
  const apisOwn413 = async () => {
    const response = await fetch(`${balancer.baseUrl}/api/v1/products`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'X-API-Key': ADMIN_KEY },
      body: `"${'a'.repeat(1_500_000)}"`,
    });
    expect(response.status).toBe(413);
    return (await response.json()) as Record<string, unknown>;
  };

  it('passes requests on with the host and scheme the client used, which links are built on', async () => {
    const response = await fetch(`${balancer.baseUrl}/api/v1/products`);
    const body = (await response.json()) as { type: string; instance: string };

    expect(response.status).toBe(401);
    expect(body.type).toBe(`${balancer.baseUrl}/docs/errors/unauthenticated`);
    expect(body.instance).toBe('/api/v1/products');
  });

  it("refuses a body over 2 MiB itself with the problem the API gives for one over 1 MiB, and the balancer's request id", async () => {
    const own = await apisOwn413();

    const refused = await announcing(3_000_000, '/api/v1/products?limit=1');

    expect(refused.status).toBe(413);
    expect(refused.headers.get('content-type')).toBe('application/problem+json');
    expect(refused.headers.get('x-content-type-options')).toBe('nosniff');
    expect(refused.body.requestId).toMatch(/^[0-9a-f]{32}$/);
    expect(refused.headers.get('x-request-id')).toBe(refused.body.requestId);
    // the same members in the same order, the request id aside
    expect(Object.entries(refused.body)).toEqual(
      Object.entries({ ...own, requestId: refused.body.requestId }),
    );
  });

  it.each([
    ['a Host with a quote', '/api/v1/products', { Host: 'shop"example' }, '/docs/errors/', true],
    [
      'a Host with a backslash',
      '/api/v1/products',
      { Host: 'shop\\example' },
      '/docs/errors/',
      true,
    ],
    [
      'an X-Forwarded-Proto with a quote',
      '/x',
      { 'X-Forwarded-Proto': 'a","status":200' },
      'http://',
      true,
    ],
    ['a path with a quote', '/api/v1/a"b', {}, 'http://', false],
    ['a path with a backslash', '/api/v1/a\\b', {}, 'http://', false],
    ['a path over 2,048 characters', `/${'p'.repeat(2048)}`, {}, 'http://', false],
  ])(
    'keeps its own 413 JSON when the request holds %s: the origin or the instance is left out instead',
    async (_, target, headers, typeStart, hasInstance) => {
      const refused = await announcing(3_000_000, target, headers);

      expect(refused.status).toBe(413);
      expect(refused.body.status).toBe(413);
      expect(refused.body.code).toBe('payload_too_large');
      expect(refused.body.type).toMatch(
        new RegExp(`^${typeStart}(.*/docs/errors/)?payload_too_large$`),
      );
      expect('instance' in refused.body).toBe(hasInstance);
      if (hasInstance) expect(refused.body.instance).toBe(target);
    },
  );
});
