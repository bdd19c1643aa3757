import { Module } from '@nestjs/common';
import { AuthModule } from '../../identity/auth/auth.module';
import { EmployeeModule } from '../../accounts/employee/employee.module';
import { SessionsModule } from '../../identity/sessions/sessions.module';
import { ScimDiscoveryController } from './scim-discovery.controller';
import { ScimTokenGuard } from './scim-token.guard';
import { ScimTokensController } from './scim-tokens.controller';
import { ScimTokensService } from './scim-tokens.service';
import { ScimUsersController } from './scim-users.controller';
import { ScimUsersService } from './scim-users.service';
import { ScimGroupsController } from './scim-groups.controller';
import { ScimGroupsService } from './scim-groups.service';

/**
 * SCIM 2.0 provisioning (docs/contract.md, "Other systems plug in"): /v1/scim/tokens for the company's
 * administrators, /scim/v2 for its identity provider.
 */
@Module({
  imports: [EmployeeModule, AuthModule, SessionsModule],
  controllers: [ScimTokensController, ScimDiscoveryController, ScimUsersController, ScimGroupsController],
  providers: [ScimTokensService, ScimUsersService, ScimGroupsService, ScimTokenGuard],
})
export class ScimModule {}
