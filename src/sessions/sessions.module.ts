import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AuthModule } from '../auth/auth.module';
import { LoginSession } from './login-session.entity';
import { SessionService } from './session.service';
import { SessionsController } from './sessions.controller';

/** Login sessions: the entity, refresh rotation, logout, the caller's session list and revocation. */
@Module({
  imports: [TypeOrmModule.forFeature([LoginSession]), AuthModule],
  controllers: [SessionsController],
  providers: [SessionService],
  exports: [SessionService],
})
export class SessionsModule {}
