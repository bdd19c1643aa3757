import { Controller, Get } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiProperty, ApiTags } from '@nestjs/swagger';
import { Public } from '../../access/rules/auth.decorator';
import { NoRateLimit } from '../../access/rules/rate-limit.decorator';

class ServiceLinksDto {
  @ApiProperty({ example: '/docs', description: 'Swagger UI: every operation, with "Try it out"' })
  docs: string;

  @ApiProperty({ example: '/docs/openapi.json', description: 'The OpenAPI document' })
  openapi: string;

  @ApiProperty({ example: '/admin', description: 'The administration page for staff' })
  admin: string;

  @ApiProperty({ example: '/health', description: 'Readiness (liveness: /health/live)' })
  health: string;

  @ApiProperty({ example: '/.well-known/jwks.json', description: "The keys that verify this service's tokens" })
  jwks: string;
}

class ServiceIndexDto {
  @ApiProperty({ example: 'staff-auth-service' })
  service: string;

  @ApiProperty({
    example: 'The API is under /v1; log in with POST /v1/users/authenticateinit, then authenticatefinish.',
  })
  message: string;

  @ApiProperty({ type: ServiceLinksDto, description: 'Paths on this same origin' })
  links: ServiceLinksDto;
}

const INDEX: ServiceIndexDto = {
  service: 'staff-auth-service',
  message: 'The API is under /v1; log in with POST /v1/users/authenticateinit, then authenticatefinish.',
  links: {
    docs: '/docs',
    openapi: '/docs/openapi.json',
    admin: '/admin',
    health: '/health',
    jwks: '/.well-known/jwks.json',
  },
};

/**
 * `GET /`: someone who opens the service's address (a browser, `curl`) learns where to go, as an API's root
 * document does (GitHub's `GET /` lists its URLs), rather than a 404. A JSON body, not a redirect: a client
 * asking the root of an API gets an answer it can read, and the paths are relative, so they hold behind any
 * proxy or host name.
 */
@ApiTags('health')
@NoRateLimit()
@Controller()
export class IndexController {
  @Get()
  @Public()
  @ApiOperation({
    operationId: 'getServiceIndex',
    summary: 'Where things are: the API documentation, the administration page, the probes',
  })
  @ApiOkResponse({ type: ServiceIndexDto })
  index(): ServiceIndexDto {
    return INDEX;
  }
}
