import { Module, OnApplicationBootstrap } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { PassportModule } from '@nestjs/passport';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AppConfig } from '../config/app-config';
import { ApiKeyEntity } from './api-keys/api-key.entity';
import { ApiKeyRevocations } from './api-keys/api-key-revocations';
import { ApiKeyUsageRecorder } from './api-keys/api-key-usage.recorder';
import { ApiKeyUsageRepository } from './api-keys/api-key-usage.repository';
import { ApiKeyStrategy } from './api-keys/api-key.strategy';
import { ApiKeyVerifier } from './api-keys/api-key-verifier';
import { ApiKeysRepository } from './api-keys/api-keys.repository';
import { AuthenticationGuard } from './authentication.guard';
import { CallerIdentifier } from './caller-identifier';
import { JwtVerifier } from './jwt/jwt-verifier';
import { OAuthModule } from './oauth/oauth.module';

@Module({
  imports: [PassportModule, TypeOrmModule.forFeature([ApiKeyEntity]), OAuthModule],
  providers: [
    ApiKeysRepository,
    ApiKeyVerifier,
    ApiKeyStrategy,
    ApiKeyUsageRepository,
    ApiKeyUsageRecorder,
    ApiKeyRevocations,
    JwtVerifier,
    CallerIdentifier,
    { provide: APP_GUARD, useClass: AuthenticationGuard },
  ],
  exports: [
    CallerIdentifier,
    ApiKeyVerifier,
    ApiKeysRepository,
    ApiKeyUsageRepository,
    ApiKeyUsageRecorder,
    ApiKeyRevocations,
  ],
})
export class AuthModule implements OnApplicationBootstrap {
  constructor(
    private readonly config: AppConfig,
    private readonly keys: ApiKeysRepository,
  ) {}

  /** BOOTSTRAP_API_KEY ensures an admin key with that value exists (API.md §2). */
  async onApplicationBootstrap(): Promise<void> {
    if (this.config.bootstrapApiKey) {
      await this.keys.ensure(this.config.bootstrapApiKey, 'bootstrap', 'admin');
    }
  }
}
