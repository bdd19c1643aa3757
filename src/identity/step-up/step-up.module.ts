import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module';
import { PasskeysModule } from '../passkeys/passkeys.module';
import { StepUpController } from './step-up.controller';
import { StepUpService } from './step-up.service';

/**
 * Step-up's own route, `POST /v1/users/me/reauthenticate`. The rule itself (`@Auth({ stepUp: true })`) is the
 * auth guard's; the proof is the session's `proven_at` (src/identity/sessions/).
 */
@Module({
  imports: [AuthModule, PasskeysModule],
  controllers: [StepUpController],
  providers: [StepUpService],
})
export class StepUpModule {}
