import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect, type TLSSocket } from 'node:tls';
import { ADMIN_KEY, startTestApp, TestApp } from './support/test-app';

/**
 * API.md §1: with TLS_CERT_FILE and TLS_KEY_FILE the server speaks HTTPS, TLS 1.3 at least,
 * and sends Strict-Transport-Security; security headers (helmet) on every answer: an API's
 * on JSON answers, and on the pages a Content-Security-Policy the docs UI works under.
 */

interface HttpsAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  protocol: string | null;
}

let dir: string;
let cert: Buffer;
let api: TestApp;
let port: number;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'coa-tls-'));
  const certFile = join(dir, 'cert.pem');
  const keyFile = join(dir, 'key.pem');
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:P-256',
      '-nodes',
      '-subj',
      '/CN=localhost',
      '-addext',
      'subjectAltName=DNS:localhost,IP:127.0.0.1',
      '-days',
      '1',
      '-keyout',
      keyFile,
      '-out',
      certFile,
    ],
    { stdio: 'ignore' },
  );
  cert = readFileSync(certFile);
  api = await startTestApp({ TLS_CERT_FILE: certFile, TLS_KEY_FILE: keyFile });
  port = Number(new URL(api.baseUrl).port);
});

afterAll(async () => {
  await api?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A GET over HTTPS that trusts only the test certificate. */
function httpsGet(path: string, headers: Record<string, string> = {}): Promise<HttpsAnswer> {
  return new Promise((resolve, reject) => {
    const req = httpsRequest(
      { host: '127.0.0.1', port, path, method: 'GET', ca: cert, headers, agent: false },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: Buffer.concat(chunks).toString('utf8'),
            protocol: (res.socket as TLSSocket).getProtocol(),
          }),
        );
      },
    );
    req.on('error', reject);
    req.end();
  });
}

/** A bare TLS handshake capped at `maxVersion`: the negotiated protocol, or the failure. */
function handshake(maxVersion: 'TLSv1.2' | 'TLSv1.3') {
  return new Promise<{ protocol?: string | null; error?: Error }>((resolve) => {
    const socket = connect({
      host: '127.0.0.1',
      port,
      ca: cert,
      servername: 'localhost',
      maxVersion,
    });
    socket.once('secureConnect', () => {
      resolve({ protocol: socket.getProtocol() });
      socket.end();
    });
    socket.once('error', (error) => resolve({ error }));
  });
}

describe('HTTPS', () => {
  it('refuses a client that offers TLS 1.2 at most', async () => {
    const result = await handshake('TLSv1.2');

    expect(result.protocol).toBeUndefined();
    expect(result.error?.message).toMatch(/protocol version|alert|handshake/i);
  });

  it('completes a TLS 1.3 handshake', async () => {
    const result = await handshake('TLSv1.3');

    expect(result).toEqual({ protocol: 'TLSv1.3' });
  });

  it('serves the API over TLS 1.3 with Strict-Transport-Security', async () => {
    const response = await httpsGet('/api/v1/products', { 'X-API-Key': ADMIN_KEY });

    expect(response.status).toBe(200);
    expect(response.protocol).toBe('TLSv1.3');
    expect(response.headers['strict-transport-security']).toBe(
      'max-age=31536000; includeSubDomains',
    );
    expect(response.headers['x-content-type-options']).toBe('nosniff');
  });

  it('sends Strict-Transport-Security on error answers and public pages too', async () => {
    const [unauthenticated, health] = await Promise.all([
      httpsGet('/api/v1/products'),
      httpsGet('/health/live'),
    ]);

    expect(unauthenticated.status).toBe(401);
    expect(health.status).toBe(200);
    for (const response of [unauthenticated, health]) {
      expect(response.headers['strict-transport-security']).toMatch(/^max-age=31536000/);
    }
  });

  it('builds absolute links with https', async () => {
    const response = await httpsGet('/api/v1/products');

    expect(JSON.parse(response.body).type).toMatch(
      /^https:\/\/127\.0\.0\.1:\d+\/docs\/errors\/unauthenticated$/,
    );
  });
});

describe('security headers over plain HTTP', () => {
  let plain: TestApp;

  beforeAll(async () => {
    plain = await startTestApp();
  });

  afterAll(async () => {
    await plain?.close();
  });

  it('sends no Strict-Transport-Security without TLS', async () => {
    const response = await plain.get('/api/v1/products');

    expect(response.status).toBe(200);
    expect(response.headers.has('strict-transport-security')).toBe(false);
  });

  it('sends an API answer the security headers of an API, without X-Powered-By', async () => {
    const response = await plain.get('/api/v1/products');

    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    expect(response.headers.has('x-powered-by')).toBe(false);
    expect(response.headers.get('x-frame-options')).toBe('DENY');
    expect(response.headers.get('referrer-policy')).toBe('no-referrer');
    expect(response.headers.get('cross-origin-resource-policy')).toBe('same-origin');
    expect(response.headers.get('content-security-policy')).toBe(
      "default-src 'none';frame-ancestors 'none'",
    );
    // helmet's headers for HTML documents are the pages' only
    expect(response.headers.has('cross-origin-opener-policy')).toBe(false);
    expect(response.headers.has('x-dns-prefetch-control')).toBe(false);
  });

  it('serves the docs UI under a policy that allows only this host', async () => {
    const page = await plain.get('/docs', { auth: false });
    const csp = page.headers.get('content-security-policy') ?? '';
    const directives = Object.fromEntries(
      csp.split(';').map((d) => {
        const [name, ...values] = d.trim().split(/\s+/);
        return [name, values];
      }),
    );

    expect(page.status).toBe(200);
    // a page keeps helmet's headers for HTML documents
    expect(page.headers.get('x-frame-options')).toBe('SAMEORIGIN');
    expect(page.headers.get('cross-origin-opener-policy')).toBe('same-origin');
    expect(directives['script-src']).toEqual(["'self'"]);
    expect(directives['style-src']).toEqual(["'self'", "'unsafe-inline'"]);
    expect(directives['connect-src']).toEqual(["'self'"]);
    expect(directives['img-src']).toEqual(["'self'", 'data:']);
    expect(directives['object-src']).toEqual(["'none'"]);
    // no other host anywhere in the policy, and no upgrade to an https that is not served
    expect(csp).not.toMatch(/https?:|\*/);
    expect(csp).not.toMatch(/upgrade-insecure-requests/);
    // every script of the page is a file of this host: nothing inline for 'self' to block
    const scripts = [...page.text.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)];
    expect(scripts.length).toBeGreaterThan(0);
    for (const [, attributes, inline] of scripts) {
      expect(attributes).toMatch(/src="(?!https?:|\/\/)[^"]+"/);
      expect(inline.trim()).toBe('');
    }
    const init = await plain.get('/docs/swagger-ui-init.js', { auth: false });
    expect(init.status).toBe(200);
    // the UI's online validator badge would load validator.swagger.io, which the policy blocks
    expect(init.text).toMatch(/"validatorUrl":\s*null/);
  });
});
