import type { AppConfig } from '../../config/app-config';
import { helmetOptions, securityHeaders } from './security-headers';

const headersFor = (tls: AppConfig['tls']) =>
  new Map(
    securityHeaders(helmetOptions({ tls } as AppConfig)).map(([name, value]) => [
      name.toLowerCase(),
      value,
    ]),
  );

describe('securityHeaders', () => {
  it('computes the headers helmet sets, once, without HSTS on plain HTTP', () => {
    const headers = headersFor(undefined);

    expect(headers.get('x-content-type-options')).toBe('nosniff');
    expect(headers.get('x-frame-options')).toBe('SAMEORIGIN');
    expect(headers.get('referrer-policy')).toBe('no-referrer');
    expect(headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(headers.get('content-security-policy')).not.toContain('upgrade-insecure-requests');
    expect(headers.has('strict-transport-security')).toBe(false);
    expect(headers.has('x-powered-by')).toBe(false);
  });

  it('adds HSTS and upgrade-insecure-requests when the server speaks HTTPS', () => {
    const headers = headersFor({ certFile: 'cert.pem', keyFile: 'key.pem' });

    expect(headers.get('strict-transport-security')).toBe('max-age=31536000; includeSubDomains');
    expect(headers.get('content-security-policy')).toContain('upgrade-insecure-requests');
  });
});
