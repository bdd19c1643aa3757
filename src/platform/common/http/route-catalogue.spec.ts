import { All, Body, Controller, Get, Module, Post, Query } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { IsInt, IsString } from 'class-validator';
import { controllersDeclaredBy, routeCatalogue } from './route-catalogue';

const Rule = Reflector.createDecorator<{ name: string; extra?: boolean }>();

class SearchQuery {
  @IsString()
  q!: string;
}

class CreateThing {
  @IsInt()
  size!: number;
}

@Rule({ name: 'controller', extra: true })
@Controller({ path: ['things', 'stuff'], version: '1' })
class ThingsController {
  @Get()
  list(@Query() _query: SearchQuery) {}

  @Rule({ name: 'handler' })
  @Post(':id/parts')
  create(@Body() _body: CreateThing, @Query('dry_run') _dryRun?: string) {}

  helper() {}
}

@Controller('health')
class HealthController {
  @All()
  any() {}
}

@Module({ controllers: [HealthController] })
class HealthModule {}

@Module({ imports: [HealthModule], controllers: [ThingsController] })
class RootModule {}

describe('routeCatalogue', () => {
  const routes = routeCatalogue(controllersDeclaredBy({ module: RootModule, imports: [HealthModule] }));
  const byHandler = (name: string) => routes.find((route) => route.handlerName === name)!;

  it('lists each routed handler once, with every path, versioned and not', () => {
    expect(routes.map((route) => route.handlerName).sort()).toEqual(['any', 'create', 'list']);
    expect(byHandler('create')).toMatchObject({
      method: 'POST',
      paths: ['/v1/things/:id/parts', '/v1/stuff/:id/parts'],
      unversionedPaths: ['/things/:id/parts', '/stuff/:id/parts'],
      controller: ThingsController,
    });
    expect(byHandler('any')).toMatchObject({ method: 'ALL', paths: ['/health'], controller: HealthController });
  });

  it('reads the declared query parameters and the body class', () => {
    expect([...(byHandler('list').query as Set<string>)]).toEqual(['q']);
    expect(byHandler('list').body).toBeUndefined();
    expect([...(byHandler('create').query as Set<string>)]).toEqual(['dry_run']);
    expect(byHandler('create').body).toBe(CreateThing);
  });

  it("reads a rule as guards do (the handler's wins) and both parts for merging", () => {
    expect(byHandler('create').rule(Rule)).toEqual({ name: 'handler' });
    expect(byHandler('list').rule(Rule)).toEqual({ name: 'controller', extra: true });
    expect(byHandler('create').ruleParts(Rule)).toEqual({
      controller: { name: 'controller', extra: true },
      handler: { name: 'handler' },
    });
    expect(byHandler('any').rule(Rule)).toBeUndefined();
  });
});
