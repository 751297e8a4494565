import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { OAuthClientEntity } from '../oauth-clients/oauth-client.entity';
import { OAuthClientsRepository } from '../oauth-clients/oauth-clients.repository';
import { UsersModule } from '../users/users.module';
import { OAuthPayloadsRepository } from './oauth-payloads.repository';
import { OAuthServer } from './oauth-server';
import { SignInLimiter } from './sign-in-limiter';
import { SigningKeys } from './signing-keys';
import { SigningKeysRepository } from './signing-keys.repository';

/**
 * The built-in authorization server (oidc-provider on /oauth), its keys and its storage.
 * The composition root attaches `OAuthServer` to Fastify; the authentication guard
 * verifies its tokens with `SigningKeys`.
 */
@Module({
  imports: [TypeOrmModule.forFeature([OAuthClientEntity]), UsersModule],
  providers: [
    SigningKeysRepository,
    SigningKeys,
    OAuthPayloadsRepository,
    OAuthClientsRepository,
    SignInLimiter,
    OAuthServer,
  ],
  exports: [SigningKeys, OAuthPayloadsRepository, OAuthClientsRepository, OAuthServer],
})
export class OAuthModule {}
