import type { HelmetOptions } from 'helmet';
import type { AppConfig } from '../../config/app-config';
import {
  apiHelmetOptions,
  pageHelmetOptions,
  SecurityHeaders,
  securityHeaders,
  servesPages,
} from './security-headers';

const TLS = { cert: Buffer.from('certificate'), key: Buffer.from('key') };

const headersFor = (options: (config: AppConfig) => HelmetOptions, tls?: AppConfig['tls']) =>
  new Map(
    securityHeaders(options({ tls } as AppConfig)).map(([name, value]) => [
      name.toLowerCase(),
      value,
    ]),
  );

describe('securityHeaders', () => {
  it('gives a JSON answer the headers an API needs, and a policy that allows nothing', () => {
    const headers = headersFor(apiHelmetOptions);

    expect(Object.fromEntries(headers)).toEqual({
      'content-security-policy': "default-src 'none';frame-ancestors 'none'",
      'cross-origin-resource-policy': 'same-origin',
      'referrer-policy': 'no-referrer',
      'x-content-type-options': 'nosniff',
      'x-frame-options': 'DENY',
    });
  });

  it('gives a page helmet’s headers under a policy that allows only this host', () => {
    const headers = headersFor(pageHelmetOptions);

    expect(headers.get('x-content-type-options')).toBe('nosniff');
    expect(headers.get('x-frame-options')).toBe('SAMEORIGIN');
    expect(headers.get('referrer-policy')).toBe('no-referrer');
    expect(headers.get('cross-origin-opener-policy')).toBe('same-origin');
    expect(headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(headers.get('content-security-policy')).not.toContain('upgrade-insecure-requests');
    expect(headers.has('strict-transport-security')).toBe(false);
    expect(headers.has('x-powered-by')).toBe(false);
  });

  it('adds HSTS to both, and upgrade-insecure-requests to pages, over HTTPS', () => {
    const api = headersFor(apiHelmetOptions, TLS);
    const pages = headersFor(pageHelmetOptions, TLS);

    for (const headers of [api, pages]) {
      expect(headers.get('strict-transport-security')).toBe('max-age=31536000; includeSubDomains');
    }
    expect(pages.get('content-security-policy')).toContain('upgrade-insecure-requests');
    expect(api.get('content-security-policy')).toBe("default-src 'none';frame-ancestors 'none'");
  });
});

describe('servesPages', () => {
  it.each(['/docs', '/docs/', '/docs?x=1', '/docs/swagger-ui.css', '/oauth', '/oauth/auth?a=b'])(
    'takes %s for a page',
    (url) => {
      expect(servesPages(url)).toBe(true);
    },
  );

  it.each(['/api/v2/products', '/docsx', '/oauthz/x', '/health/ready', '/.well-known/jwks', '*'])(
    'takes %s for an API answer',
    (url) => {
      expect(servesPages(url)).toBe(false);
    },
  );
});

describe('SecurityHeaders', () => {
  it('chooses the pages’ set under /docs and /oauth and the API’s elsewhere', () => {
    const headers = new SecurityHeaders({} as AppConfig);

    expect(headers.for('/docs/swagger-ui.css')).toBe(headers.pages);
    expect(headers.for('/oauth/auth')).toBe(headers.pages);
    expect(headers.for('/api/v2/orders')).toBe(headers.api);
    expect(headers.api).toEqual(securityHeaders(apiHelmetOptions({} as AppConfig)));
    expect(headers.pages).toEqual(securityHeaders(pageHelmetOptions({} as AppConfig)));
  });
});
