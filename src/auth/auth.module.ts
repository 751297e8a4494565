import { Module, OnApplicationBootstrap } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { PassportModule } from '@nestjs/passport';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AppConfig } from '../config/app-config';
import { ApiKeyEntity } from './api-keys/api-key.entity';
import { ApiKeyStrategy } from './api-keys/api-key.strategy';
import { ApiKeyVerifier } from './api-keys/api-key-verifier';
import { ApiKeysRepository } from './api-keys/api-keys.repository';
import { AuthenticationGuard } from './authentication.guard';

@Module({
  imports: [PassportModule, TypeOrmModule.forFeature([ApiKeyEntity])],
  providers: [
    ApiKeysRepository,
    ApiKeyVerifier,
    ApiKeyStrategy,
    { provide: APP_GUARD, useClass: AuthenticationGuard },
  ],
  exports: [ApiKeyVerifier, ApiKeysRepository],
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
