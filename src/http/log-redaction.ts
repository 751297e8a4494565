/** Request and response headers that carry credentials or sessions. */
const SECRET_HEADERS = [
  'authorization',
  'proxy-authorization',
  'x-api-key',
  'cookie',
  'set-cookie',
] as const;

/**
 * pino `redact` paths for those headers wherever a log object may carry them: a bare
 * `headers` field, or one under any top-level field (`req`, `res`, `err`...).
 */
export const REDACTED_LOG_PATHS = [
  ...SECRET_HEADERS.flatMap((name) => [`headers["${name}"]`, `*.headers["${name}"]`]),
  // a failed query's bound values may include password or key hashes
  'err.parameters',
];

export const REDACTED = '[Redacted]';

/**
 * Query parameters that carry credentials: OAuth 2.0 and OpenID Connect (`code`,
 * `code_verifier`, `*_token`, `id_token_hint`, `client_secret`, `client_assertion`) and
 * keys or passwords a client should never have put in a URL.
 */
const SECRET_PARAM =
  /^(?:code|code_verifier|password|api_?key)$|(?:^|_)(?:token|secret|assertion)(?:_hint)?$/i;

/**
 * The URL as received, with the value of every secret-looking query parameter replaced;
 * the rest is left byte for byte, so the line still shows what the client sent.
 */
export function withoutSecrets(url: string): string {
  const start = url.indexOf('?');
  if (start < 0) return url;
  const query = url
    .slice(start + 1)
    .split('&')
    .map((pair) => {
      const name = pair.split('=', 1)[0];
      return SECRET_PARAM.test(decodeName(name)) ? `${name}=${REDACTED}` : pair;
    });
  return `${url.slice(0, start)}?${query.join('&')}`;
}

function decodeName(name: string): string {
  try {
    return decodeURIComponent(name.replace(/\+/g, ' '));
  } catch {
    return name;
  }
}
