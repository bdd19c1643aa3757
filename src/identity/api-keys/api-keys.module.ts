import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module';
import { ApiKeyStrategy } from './api-key.strategy';
import { ApiKeysController } from './api-keys.controller';
import { ApiKeysService } from './api-keys.service';

@Module({
  imports: [AuthModule],
  controllers: [ApiKeysController],
  // Auth finds the strategy at start by its @CredentialKind mark.
  providers: [ApiKeysService, ApiKeyStrategy],
})
export class ApiKeysModule {}
