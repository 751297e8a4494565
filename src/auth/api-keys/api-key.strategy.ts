import { Injectable } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import { HeaderAPIKeyStrategy } from 'passport-headerapikey';
import type { Principal } from '../principal';
import { ApiKeyUsageRecorder } from './api-key-usage.recorder';
import { ApiKeyVerifier } from './api-key-verifier';

export const API_KEY_HEADER = 'X-API-Key';

/**
 * Passport strategy for `X-API-Key` (API.md §2). Each request a valid key authenticates
 * is counted for the key's usage (in memory; see ApiKeyUsageRecorder).
 */
@Injectable()
export class ApiKeyStrategy extends PassportStrategy(HeaderAPIKeyStrategy, 'api-key') {
  constructor(
    private readonly verifier: ApiKeyVerifier,
    private readonly usage: ApiKeyUsageRecorder,
  ) {
    super({ header: API_KEY_HEADER, prefix: '' }, false);
  }

  async validate(apiKey: string): Promise<Principal | null> {
    const principal = await this.verifier.verify(apiKey);
    if (principal?.apiKeyId) this.usage.record(principal.apiKeyId);
    return principal;
  }
}
