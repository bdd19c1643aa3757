import { Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { AppConfig } from '../config/app-config';
import { DatabaseModule } from '../database/database.module';
import { JwtKeyRing } from './jwt-key-ring';
import { SealedColumnsResealer } from './sealed-columns';
import { SsoSecretBox, StreamSecretBox, TotpSecretBox } from './secret-boxes';

/**
 * The service's keys: the ring JWTs are signed with, and the boxes that seal secrets at rest (TOTP, SSO client
 * secrets, event-stream secrets), each under its own key derived from ENCRYPTION_KEY (or, without it, from the
 * JWT keys). The resealer re-encrypts, at start, every column a module marks with @SealsColumn.
 */
@Module({
  imports: [DiscoveryModule, DatabaseModule],
  providers: [
    { provide: JwtKeyRing, inject: [AppConfig], useFactory: (config: AppConfig) => JwtKeyRing.fromConfig(config) },
    ...[TotpSecretBox, SsoSecretBox, StreamSecretBox].map((Box) => ({
      provide: Box,
      inject: [JwtKeyRing, AppConfig],
      useFactory: (ring: JwtKeyRing, config: AppConfig) => new Box(ring, config.encryptionKey),
    })),
    SealedColumnsResealer,
  ],
  exports: [JwtKeyRing, TotpSecretBox, SsoSecretBox, StreamSecretBox],
})
export class KeysModule {}
