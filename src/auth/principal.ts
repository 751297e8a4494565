import type { Permission, Role } from './permissions';

/** Who is calling, whatever the credential: what guards, services and repositories see. */
export interface Principal {
  /** `api_key:<id>` or the token subject; keys rate limits, idempotency and audit */
  subject: string;
  kind: 'api_key' | 'token';
  role: Role;
  /** set for the customer role: the customer whose rows this principal may see */
  customerId?: string;
  apiKeyId?: string;
  /**
   * set for tokens: what this principal may do, its roles' permissions narrowed by the
   * token's scopes; when absent, `role` alone decides
   */
  permissions?: ReadonlySet<Permission>;
  /** set for tokens: every known role the token carries (`role` is the widest of them) */
  roles?: readonly Role[];
}

declare module 'fastify' {
  interface FastifyRequest {
    user?: Principal;
  }
}
