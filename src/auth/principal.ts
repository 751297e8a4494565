import type { Role } from './permissions';

/** Who is calling, whatever the credential: what guards, services and repositories see. */
export interface Principal {
  /** `api_key:<id>` or the token subject; keys rate limits, idempotency and audit */
  subject: string;
  kind: 'api_key' | 'token';
  role: Role;
  /** set for the customer role: the customer whose rows this principal may see */
  customerId?: string;
  apiKeyId?: string;
}

declare module 'fastify' {
  interface FastifyRequest {
    user?: Principal;
  }
}
