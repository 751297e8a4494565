import { Injectable } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import { HeaderAPIKeyStrategy } from 'passport-headerapikey';
import type { Principal } from '../principal';
import { ApiKeyVerifier } from './api-key-verifier';

export const API_KEY_HEADER = 'X-API-Key';

/** Passport strategy for `X-API-Key` (API.md §2). */
@Injectable()
export class ApiKeyStrategy extends PassportStrategy(HeaderAPIKeyStrategy, 'api-key') {
  constructor(private readonly verifier: ApiKeyVerifier) {
    super({ header: API_KEY_HEADER, prefix: '' }, false);
  }

  validate(apiKey: string): Promise<Principal | null> {
    return this.verifier.verify(apiKey);
  }
}
