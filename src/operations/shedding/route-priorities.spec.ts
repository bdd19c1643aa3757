import { Controller, Delete, Get, Head, Post, Put } from '@nestjs/common';
import { AppModule } from '../../app.module';
import { HealthPriority, RevocationPriority, SignInPriority } from '../../access/rules/load-priority.decorator';
import { controllersDeclaredBy, routeCatalogue } from '../../platform/common/http/route-catalogue';
import type { AppLogger } from '../../platform/common/logging/logger';
import type { AppConfig } from '../../platform/config/app-config';
import { RoutePriorities } from './route-priorities';

@Controller({ path: 'widgets', version: '1' })
class WidgetsController {
  @Get()
  list(): void {}
  @Head('peek')
  peek(): void {}
  @Post()
  create(): void {}
  @Put(':id')
  replace(): void {}
  @Delete(':id')
  remove(): void {}
  @Post('search')
  @SignInPriority()
  // A POST that declares a priority is not a write.
  search(): void {}
}

@Controller('probe')
@HealthPriority()
class ProbeController {
  @Get()
  probe(): void {}
  // The handler's own rule wins over its controller's.
  @Post('end')
  @RevocationPriority()
  end(): void {}
}

describe('a route’s load priority', () => {
  const own = new RoutePriorities(routeCatalogue([WidgetsController, ProbeController]));

  it('defaults: GET and HEAD are reads, every other method a write', () => {
    expect(own.of('GET', '/v1/widgets')).toBe('read');
    expect(own.of('HEAD', '/v1/widgets/peek')).toBe('read');
    expect(own.of('POST', '/v1/widgets')).toBe('write');
    expect(own.of('PUT', '/v1/widgets/:id')).toBe('write');
    expect(own.of('DELETE', '/v1/widgets/:id')).toBe('write');
  });

  it('a declared priority, on the handler or on its controller, the handler’s first', () => {
    expect(own.of('POST', '/v1/widgets/search')).toBe('sign_in');
    expect(own.of('GET', '/probe')).toBe('health');
    expect(own.of('HEAD', '/probe')).toBe('health');
    expect(own.of('POST', '/probe/end')).toBe('revocation');
  });

  it('a request no route matched goes by its method', () => {
    expect(own.of('GET', undefined)).toBe('read');
    expect(own.of('PATCH', undefined)).toBe('write');
    expect(own.of('POST', '/v1/nowhere')).toBe('write');
  });

  describe('the application’s routes (docs/contract.md: health; logout and revocations; logins, refresh, switch)', () => {
    const app = new RoutePriorities(
      routeCatalogue(controllersDeclaredBy(AppModule.forRoot({ rateLimitScale: 1 } as AppConfig, {} as AppLogger))),
    );
    it.each([
      ['GET', '/health', 'health'],
      ['GET', '/health/live', 'health'],
      ['HEAD', '/health', 'health'],
      ['GET', '/metrics', 'health'],
      ['POST', '/v1/users/logout', 'revocation'],
      ['DELETE', '/v1/users/sessions/:id', 'revocation'],
      ['DELETE', '/v1/apikeys/:id', 'revocation'],
      ['POST', '/v1/sso/backchannel-logout', 'revocation'],
      ['POST', '/v1/users/authenticateinit', 'sign_in'],
      ['POST', '/v1/users/authenticatefinish', 'sign_in'],
      ['POST', '/v1/users/passkeys/options', 'sign_in'],
      ['POST', '/v1/users/passkeys/authenticate', 'sign_in'],
      ['POST', '/v1/users/refreshtoken', 'sign_in'],
      ['POST', '/v1/users/changeworkingcompany', 'sign_in'],
      ['POST', '/v1/sso/start', 'sign_in'],
      ['GET', '/v1/sso/callback', 'sign_in'],
      ['POST', '/v1/sso/exchange', 'sign_in'],
      ['GET', '/v1/users/me', 'read'],
      ['GET', '/v1/products', 'read'],
      ['GET', '/v1/users/sessions', 'read'],
      ['POST', '/v1/products', 'write'],
      ['DELETE', '/v1/products/:id', 'write'],
      ['POST', '/v1/apikeys', 'write'],
      ['DELETE', '/v1/users/me/passkeys/:id', 'write'],
    ])('%s %s: %s', (method, url, priority) => {
      expect(app.of(method, url)).toBe(priority);
    });
  });
});
