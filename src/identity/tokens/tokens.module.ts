import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module';
import { IntrospectionController } from './introspection.controller';

/** /v1/tokens: introspection (RFC 7662) for other services; the JWKS they verify offline is auth's. */
@Module({
  imports: [AuthModule],
  controllers: [IntrospectionController],
})
export class TokensModule {}
