import { Body, Controller, Delete, Get, HttpCode, HttpStatus, Post, Put, Query } from '@nestjs/common';
import {
  ApiConflictResponse,
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import { Auth, CurrentPrincipal } from '../../access/rules/auth.decorator';
import type { Principal } from '../../access/rules/principal';
import { Client, type ClientInfo } from '../../platform/common/http/client-info';
import { ErrorBodySchema } from '../../platform/common/errors/error-body.schema';
import { ApiRecordId, RecordId } from '../../platform/common/http/record-id';
import { ReplacePermissionsDto } from './dto/user-permissions.dto';
import { CompanyEmployeeDto, CreateEmployeeDto, EmployeeListQueryDto, EmployeePageDto, MeDto } from './dto/users.dto';
import { UserPermissionsService } from './user-permissions.service';
import { UserRemovalService } from './user-removal.service';
import { AccountMfaService } from './account-mfa.service';
import { AccountPasswordService } from './account-password.service';
import { ResetCodeDto } from './dto/account.dto';
import { NO_SUCH_EMPLOYEE } from './staff-guard';
import { NO_STORE_HEADERS, NoStore } from '../../platform/common/http/no-store';
import { UsersService } from './users.service';

@ApiTags('users')
@Controller({ path: 'users', version: '1' })
export class UsersController {
  constructor(
    private readonly users: UsersService,
    private readonly userPermissions: UserPermissionsService,
    private readonly removal: UserRemovalService,
    private readonly passwords: AccountPasswordService,
    private readonly mfa: AccountMfaService,
  ) {}

  @Get('me')
  @Auth()
  @ApiOperation({ operationId: 'getMe', summary: 'Who the credential acts as: employee, company, permissions' })
  @ApiOkResponse({ type: MeDto })
  me(@CurrentPrincipal() principal: Principal): MeDto {
    return this.users.me(principal);
  }

  @Get()
  @Auth({ permission: 'users:read' })
  @ApiOperation({ summary: 'The employees of the current company, a page at a time' })
  @ApiOkResponse({ type: EmployeePageDto })
  list(@CurrentPrincipal() principal: Principal, @Query() query: EmployeeListQueryDto): Promise<EmployeePageDto> {
    return this.users.list(principal.companyId, query);
  }

  @Post()
  @Auth({ permission: 'users:write' })
  @ApiOperation({ summary: 'Create an employee in the current company (with permissions the caller holds)' })
  @ApiCreatedResponse({ type: CompanyEmployeeDto })
  @ApiConflictResponse({
    description: 'error_conflict: the e-mail already has an account (in any company); invite it instead',
    type: ErrorBodySchema,
  })
  create(
    @CurrentPrincipal() principal: Principal,
    @Body() body: CreateEmployeeDto,
    @Client() client: ClientInfo,
  ): Promise<CompanyEmployeeDto> {
    return this.users.create(principal, body, client);
  }

  @Put(':id/permissions')
  @Auth({ permission: 'users:write', stepUp: true })
  @ApiOperation({
    summary: "Replace an employee's permissions in the current company",
    description:
      "The new set must be one the caller holds, and so must the employee's current set (only a `*` holder can " +
      'change a `*` holder); the company keeps at least one `*` holder. Credentials of the employee in this ' +
      'company, on every instance, use the new set from their next request; their API keys are narrowed to it.',
  })
  @ApiRecordId('employee')
  @ApiOkResponse({ type: CompanyEmployeeDto })
  replacePermissions(
    @CurrentPrincipal() principal: Principal,
    @RecordId('No such employee in this company.') id: number,
    @Body() body: ReplacePermissionsDto,
    @Client() client: ClientInfo,
  ): Promise<CompanyEmployeeDto> {
    return this.userPermissions.replace(principal, id, body, client);
  }

  @Delete(':id')
  @Auth({ permission: 'users:write', jwtOnly: true })
  @HttpCode(HttpStatus.NO_CONTENT)
  @ApiOperation({
    summary: 'Remove an employee from the current company (the account and its other companies stay)',
    description:
      "The employee's tokens for this company and API keys in it are blacklisted on every instance before the " +
      'answer. Never yourself, never someone holding a permission you lack, never the last `*` holder: 403.',
  })
  @ApiRecordId('employee')
  @ApiNoContentResponse({ description: 'Removed' })
  async remove(
    @CurrentPrincipal() principal: Principal,
    @RecordId('No such employee in this company.') id: number,
    @Client() client: ClientInfo,
  ): Promise<void> {
    await this.removal.remove(principal, id, client);
  }

  @Post(':id/passwordreset')
  @Auth({ permission: 'users:write', jwtOnly: true, stepUp: true })
  @NoStore()
  @ApiOperation({
    summary: 'Issue a password-reset code for an employee (shown once, valid 24 hours, single use)',
    description:
      'Only for an employee who belongs to no other company and holds nothing the caller lacks (else 403): a ' +
      'company must never be able to take over an account another company relies on.',
  })
  @ApiRecordId('employee')
  @ApiCreatedResponse({ type: ResetCodeDto, headers: NO_STORE_HEADERS })
  issuePasswordReset(
    @CurrentPrincipal() principal: Principal,
    @RecordId(NO_SUCH_EMPLOYEE) id: number,
    @Client() client: ClientInfo,
  ): Promise<ResetCodeDto> {
    return this.passwords.issueReset(principal, id, client);
  }

  @Post(':id/mfa/reset')
  @Auth({ permission: 'users:write', jwtOnly: true, stepUp: true })
  @HttpCode(HttpStatus.NO_CONTENT)
  @ApiOperation({ summary: "Turn an employee's TOTP off (same conditions as a password reset)" })
  @ApiRecordId('employee')
  @ApiNoContentResponse({ description: 'TOTP is off' })
  async resetMfa(
    @CurrentPrincipal() principal: Principal,
    @RecordId(NO_SUCH_EMPLOYEE) id: number,
    @Client() client: ClientInfo,
  ): Promise<void> {
    await this.mfa.adminReset(principal, id, client);
  }
}
