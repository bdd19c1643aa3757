import { Module } from '@nestjs/common';
import { RevocationBus } from './revocation-bus';

/**
 * The revocation bus on its own: whatever revokes a credential (auth, sessions, users, API keys, the CLI)
 * announces it here, and the credential cache listens. It knows nothing of credentials beyond the notice.
 */
@Module({
  providers: [RevocationBus],
  exports: [RevocationBus],
})
export class RevocationModule {}
