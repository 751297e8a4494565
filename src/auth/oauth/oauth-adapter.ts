import type { Adapter, AdapterFactory, AdapterPayload } from 'oidc-provider';
import { holdsNul } from '../../http/input/nul-character';
import type { OAuthClientsRepository } from '../oauth-clients/oauth-clients.repository';
import { clientMetadata } from './oauth-client-metadata';
import type { OAuthPayloadsRepository } from './oauth-payloads.repository';
import { reachingDatabase } from './oauth-unavailable';

/**
 * oidc-provider's storage on PostgreSQL: every model in `oauth_payloads`, so sessions,
 * codes, refresh tokens and grants are shared by all instances; clients are read from
 * `oauth_clients` (the /oauth-clients resource), never written through here, as dynamic
 * registration is off. A database that cannot be reached is oidc-provider's
 * `503 temporarily_unavailable` (oauth-unavailable.ts). An id that holds U+0000 (from a
 * form body: `client_id=a%00b`, a code or token) is none that was stored, since
 * PostgreSQL text cannot hold it: nothing is found without asking, where asking would fail
 * the statement and answer 500.
 */
export function postgresAdapter(
  payloads: OAuthPayloadsRepository,
  clients: OAuthClientsRepository,
): AdapterFactory {
  return (model: string): Adapter =>
    model === 'Client' ? new ClientAdapter(clients) : new PayloadAdapter(model, payloads);
}

class PayloadAdapter implements Adapter {
  constructor(
    private readonly model: string,
    private readonly payloads: OAuthPayloadsRepository,
  ) {}

  upsert(id: string, payload: AdapterPayload, expiresIn?: number): Promise<void> {
    return reachingDatabase(this.payloads.upsert(this.model, id, payload, expiresIn));
  }

  find(id: string): Promise<AdapterPayload | undefined> {
    if (holdsNul(id)) return Promise.resolve(undefined);
    return reachingDatabase(this.payloads.find(this.model, id));
  }

  findByUid(uid: string): Promise<AdapterPayload | undefined> {
    if (holdsNul(uid)) return Promise.resolve(undefined);
    return reachingDatabase(this.payloads.findByUid(this.model, uid));
  }

  findByUserCode(userCode: string): Promise<AdapterPayload | undefined> {
    if (holdsNul(userCode)) return Promise.resolve(undefined);
    return reachingDatabase(this.payloads.findByUserCode(this.model, userCode));
  }

  consume(id: string): Promise<void> {
    if (holdsNul(id)) return Promise.resolve();
    return reachingDatabase(this.payloads.consume(this.model, id));
  }

  destroy(id: string): Promise<void> {
    if (holdsNul(id)) return Promise.resolve();
    return reachingDatabase(this.payloads.destroy(this.model, id));
  }

  revokeByGrantId(grantId: string): Promise<void> {
    return reachingDatabase(this.payloads.revokeByGrantId(grantId));
  }
}

class ClientAdapter implements Adapter {
  constructor(private readonly clients: OAuthClientsRepository) {}

  async find(clientId: string): Promise<AdapterPayload | undefined> {
    if (holdsNul(clientId)) return undefined;
    const client = await reachingDatabase(this.clients.findByClientId(clientId));
    return client ? clientMetadata(client) : undefined;
  }

  upsert(): Promise<void> {
    return Promise.reject(new Error('clients are registered through /oauth-clients'));
  }

  findByUid(): Promise<undefined> {
    return Promise.resolve(undefined);
  }

  findByUserCode(): Promise<undefined> {
    return Promise.resolve(undefined);
  }

  consume(): Promise<void> {
    return Promise.resolve();
  }

  destroy(): Promise<void> {
    return Promise.resolve();
  }

  revokeByGrantId(): Promise<void> {
    return Promise.resolve();
  }
}
