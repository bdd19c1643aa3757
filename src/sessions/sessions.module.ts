import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module';
import { SessionsController } from './sessions.controller';

/**
 * The routes of login sessions after login (refresh, logout, the caller's session list and revocation). The
 * sessions themselves — entity, refresh rotation, issued tokens — are the AuthModule's (src/auth/sessions/).
 */
@Module({
  imports: [AuthModule],
  controllers: [SessionsController],
})
export class SessionsModule {}
