import { Body, Controller, Get, Post } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Auth, CurrentPrincipal } from '../auth/auth.decorator';
import type { Principal } from '../auth/credentials/principal';
import { CompanyEmployeeDto, CreateEmployeeDto, EmployeeListDto, MeDto } from './dto/users.dto';
import { UsersService } from './users.service';

@ApiTags('users')
@Controller({ path: 'users', version: '1' })
export class UsersController {
  constructor(private readonly users: UsersService) {}

  @Get('me')
  @Auth()
  @ApiOperation({ summary: 'Who the credential acts as: employee, company, permissions' })
  @ApiOkResponse({ type: MeDto })
  me(@CurrentPrincipal() principal: Principal): MeDto {
    return this.users.me(principal);
  }

  @Get()
  @Auth({ permission: 'users:read' })
  @ApiOperation({ summary: 'The employees of the current company' })
  @ApiOkResponse({ type: EmployeeListDto })
  async list(@CurrentPrincipal() principal: Principal): Promise<EmployeeListDto> {
    return { data: await this.users.list(principal.companyId) };
  }

  @Post()
  @Auth({ permission: 'users:write' })
  @ApiOperation({ summary: 'Create an employee in the current company (with permissions the caller holds)' })
  @ApiCreatedResponse({ type: CompanyEmployeeDto })
  create(@CurrentPrincipal() principal: Principal, @Body() body: CreateEmployeeDto): Promise<CompanyEmployeeDto> {
    return this.users.create(principal, body);
  }
}
