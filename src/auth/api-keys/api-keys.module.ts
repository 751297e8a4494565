import { Module } from '@nestjs/common';
import { AuthModule } from '../auth.module';
import { ApiKeysController } from './api-keys.controller';
import { ApiKeysService } from './api-keys.service';

/**
 * The /api-keys resource. Verifying keys, counting their use and evicting revoked ones
 * are on the authentication path, in AuthModule; this module is the admin side.
 */
@Module({
  imports: [AuthModule],
  controllers: [ApiKeysController],
  providers: [ApiKeysService],
})
export class ApiKeysModule {}
