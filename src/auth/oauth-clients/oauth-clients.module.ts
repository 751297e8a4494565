import { Module } from '@nestjs/common';
import { OAuthModule } from '../oauth/oauth.module';
import { OAuthClientsController } from './oauth-clients.controller';
import { OAuthClientsService } from './oauth-clients.service';

/** The /oauth-clients resource: the clients of the built-in authorization server. */
@Module({
  imports: [OAuthModule],
  controllers: [OAuthClientsController],
  providers: [OAuthClientsService],
})
export class OAuthClientsModule {}
