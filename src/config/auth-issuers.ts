/**
 * One external issuer whose JWT access tokens the API trusts (API.md §2, §13): an
 * enterprise IdP such as Keycloak or Entra ID.
 */
export interface TrustedIssuerConfig {
  /** the exact `iss` of its tokens */
  readonly issuer: string;
  /** where its signing keys are published (https; http only on loopback, for tests) */
  readonly jwksUri: string;
  /** the `aud` its tokens must carry for this API: one value, or any of several */
  readonly audience: string | readonly string[];
  /** the claim holding the roles; a dotted path reaches nested claims (`realm_access.roles`) */
  readonly rolesClaim: string;
}

const FIELDS = ['issuer', 'jwksUri', 'audience', 'rolesClaim'] as const;
const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * Parses AUTH_ISSUERS, a JSON list of `{issuer, jwksUri, audience, rolesClaim}`. Returns
 * the issuers, or the problems found, each naming its entry and field
 * (`AUTH_ISSUERS[1].jwksUri: must be an https URL`).
 */
export function parseAuthIssuers(
  value: string | undefined,
): { issuers: TrustedIssuerConfig[] } | { problems: string[] } {
  if (value === undefined) return { issuers: [] };
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    return { problems: ['AUTH_ISSUERS: must be a JSON list'] };
  }
  if (!Array.isArray(parsed)) return { problems: ['AUTH_ISSUERS: must be a JSON list'] };

  const problems: string[] = [];
  const issuers: TrustedIssuerConfig[] = [];
  const seen = new Set<string>();
  parsed.forEach((entry: unknown, index) => {
    const at = `AUTH_ISSUERS[${index}]`;
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) {
      problems.push(`${at}: must be an object {issuer, jwksUri, audience, rolesClaim}`);
      return;
    }
    const record = entry as Record<string, unknown>;
    const before = problems.length;
    for (const key of Object.keys(record)) {
      if (!(FIELDS as readonly string[]).includes(key)) {
        problems.push(`${at}.${key}: is not a known field (${FIELDS.join(', ')})`);
      }
    }
    const { issuer, jwksUri, audience, rolesClaim } = record;
    if (!isUrl(issuer)) {
      problems.push(`${at}.issuer: must be the issuer's URL, exactly as its tokens' iss`);
    } else if (seen.has(issuer)) {
      problems.push(`${at}.issuer: ${issuer} is listed twice`);
    }
    if (!isUrl(jwksUri) || !secureOrLoopback(jwksUri)) {
      problems.push(`${at}.jwksUri: must be an https URL (http only on loopback)`);
    }
    const audiences = Array.isArray(audience) ? audience : [audience];
    if (audiences.length === 0 || !audiences.every((a) => typeof a === 'string' && a !== '')) {
      problems.push(`${at}.audience: must be a non-empty string or a list of them`);
    }
    if (typeof rolesClaim !== 'string' || !/^[^.\s]+(\.[^.\s]+)*$/.test(rolesClaim)) {
      problems.push(`${at}.rolesClaim: must name a claim, e.g. "roles" or "realm_access.roles"`);
    }
    if (problems.length > before) return;
    seen.add(issuer as string);
    issuers.push({
      issuer: issuer as string,
      jwksUri: jwksUri as string,
      audience: Array.isArray(audience) ? (audience as string[]) : (audience as string),
      rolesClaim: rolesClaim as string,
    });
  });
  return problems.length > 0 ? { problems } : { issuers };
}

function isUrl(value: unknown): value is string {
  if (typeof value !== 'string') return false;
  try {
    const { protocol } = new URL(value);
    return protocol === 'https:' || protocol === 'http:';
  } catch {
    return false;
  }
}

function secureOrLoopback(value: string): boolean {
  const url = new URL(value);
  return url.protocol === 'https:' || LOOPBACK.has(url.hostname);
}
