import { Injectable, Scope } from '@nestjs/common';
import { DiscoveryModule, DiscoveryService } from '@nestjs/core';
import { Test } from '@nestjs/testing';
import { discover } from './discovered';

const Marked = DiscoveryService.createDecorator<string>();

@Marked('first')
@Injectable()
class First {}

@Marked('second')
@Injectable()
class Second {}

@Injectable()
class Unmarked {}

@Marked('per request')
@Injectable({ scope: Scope.REQUEST })
class PerRequest {}

async function discoveryWith(providers: Parameters<typeof Test.createTestingModule>[0]['providers']) {
  const moduleRef = await Test.createTestingModule({ imports: [DiscoveryModule], providers }).compile();
  return { discovery: moduleRef.get(DiscoveryService), moduleRef };
}

describe('discover', () => {
  it('finds each marked singleton once, with what its mark says, and nothing unmarked', async () => {
    const { discovery, moduleRef } = await discoveryWith([
      First,
      Second,
      Unmarked,
      { provide: 'alias', useExisting: First },
    ]);
    const found = discover<object, string>(discovery, Marked);
    expect(found.map(({ meta, name }) => [meta, name])).toEqual([
      ['first', 'First'],
      ['second', 'Second'],
    ]);
    expect(found[0].instance).toBe(moduleRef.get(First));
  });

  it('refuses a marked provider that is not a singleton', async () => {
    const { discovery } = await discoveryWith([First, PerRequest]);
    expect(() => discover(discovery, Marked)).toThrow('PerRequest is marked for discovery but is not a singleton');
  });
});
