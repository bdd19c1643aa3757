import { Module } from '@nestjs/common';
import { AuthModule } from '../../identity/auth/auth.module';
import { RolesController } from './roles.controller';
import { RolesService } from './roles.service';

/** /v1/roles over the role tables of src/accounts/roles/. */
@Module({
  imports: [AuthModule],
  controllers: [RolesController],
  providers: [RolesService],
  exports: [RolesService],
})
export class RolesModule {}
