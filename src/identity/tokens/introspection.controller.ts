import { Body, Controller, HttpCode, HttpStatus, Post } from '@nestjs/common';
import { ApiBadRequestResponse, ApiConsumes, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Auth, CurrentPrincipal } from '../../access/rules/auth.decorator';
import { CredentialService } from '../auth/credentials/credential.service';
import type { Principal } from '../../access/rules/principal';
import { ErrorBodySchema } from '../../platform/common/errors/error-body.schema';
import { FormBody } from '../../platform/common/http/form-body';
import { NO_STORE_HEADERS, NoStore } from '../../platform/common/http/no-store';
import { RateLimit } from '../../access/rules/rate-limit.decorator';
import { IntrospectionDto, IntrospectTokenDto } from './dto/introspection.dto';

const INACTIVE: IntrospectionDto = { active: false };

/**
 * RFC 7662 token introspection, for the company's other services: what offline verification cannot see
 * (revocation, logout, a removed member) is answered here, from the same cache and look-ups as a request.
 */
@ApiTags('tokens')
// One service asks for many users' tokens from one address with one key: room for 100 a second, not 5.
@RateLimit({ limits: { POST: 300 } })
@Controller({ path: 'tokens', version: '1' })
export class IntrospectionController {
  constructor(private readonly credentials: CredentialService) {}

  @Post('introspect')
  // A service's credential, never a person's login token: 403 error_permission_denied for a JWT.
  @Auth({ permission: 'tokens:introspect', apiKeyOnly: true })
  @FormBody()
  @HttpCode(HttpStatus.OK)
  @NoStore()
  @ApiConsumes('application/json', 'application/x-www-form-urlencoded')
  @ApiOperation({
    operationId: 'introspectToken',
    summary: "Whether a token (JWT or API key) is live now, and whose: RFC 7662, for the caller's company only",
    description:
      '`{"active": false}` for a revoked, expired, unknown or malformed token, and for a token of another ' +
      'company. A logout or revocation on any instance is seen here within a second.',
  })
  @ApiOkResponse({ type: IntrospectionDto, headers: NO_STORE_HEADERS })
  @ApiBadRequestResponse({
    description:
      'error_validation: no `token` string (at most 4096 characters), a field given twice, or an unknown field',
    type: ErrorBodySchema,
  })
  async introspect(@Body() body: IntrospectTokenDto, @CurrentPrincipal() caller: Principal): Promise<IntrospectionDto> {
    const found = await this.credentials.inspect(body.token);
    if (found === null || found.principal.companyId !== caller.companyId) return INACTIVE;
    const { principal } = found;
    const seconds = (ms: number) => Math.floor(ms / 1000);
    return {
      active: true,
      token_type: principal.kind,
      sub: String(principal.employeeId),
      company_id: principal.companyId,
      ...(principal.sessionId === null ? {} : { sid: principal.sessionId }),
      scope: principal.permissions.join(' '),
      iat: seconds(found.issuedAtMs),
      ...(Number.isFinite(found.expiresAtMs) ? { exp: seconds(found.expiresAtMs) } : {}),
    };
  }
}
