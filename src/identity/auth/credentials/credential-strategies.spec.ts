import { Injectable } from '@nestjs/common';
import { DiscoveryModule, DiscoveryService } from '@nestjs/core';
import { Test } from '@nestjs/testing';
import { CredentialStrategies } from './credential-strategies';
import { CredentialKind, type CredentialStrategy, NOT_KEPT } from './credential-strategy';

abstract class FakeStrategy implements CredentialStrategy {
  abstract accepts(header: string): boolean;
  vouchesFor(): boolean {
    return false;
  }
  async lookUp() {
    return NOT_KEPT;
  }
  async recordUse(): Promise<void> {}
}

@CredentialKind('jwt')
@Injectable()
class Jwts extends FakeStrategy {
  accepts(header: string): boolean {
    return !header.includes(':');
  }
}

@CredentialKind('api_key')
@Injectable()
class ApiKeys extends FakeStrategy {
  accepts(header: string): boolean {
    return header.includes(':');
  }
}

@CredentialKind('jwt')
@Injectable()
class OtherJwts extends Jwts {}

async function registryOver(...providers: Array<new () => CredentialStrategy>) {
  const moduleRef = await Test.createTestingModule({
    imports: [DiscoveryModule],
    providers: [...providers, CredentialStrategies],
  }).compile();
  const registry = moduleRef.get(CredentialStrategies);
  return { registry, moduleRef, discovery: moduleRef.get(DiscoveryService) };
}

describe('CredentialStrategies', () => {
  it('finds the marked strategies at start: by header form and by kind', async () => {
    const { registry, moduleRef } = await registryOver(Jwts, ApiKeys);
    await moduleRef.init();
    expect(registry.forHeader('key:secret')).toBe(moduleRef.get(ApiKeys));
    expect(registry.forHeader('a.b.c')).toBe(moduleRef.get(Jwts));
    expect(registry.ofKind('api_key')).toBe(moduleRef.get(ApiKeys));
    expect(registry.ofKind('jwt')).toBe(moduleRef.get(Jwts));
  });

  it('refuses to start with two strategies for one kind', async () => {
    const { moduleRef } = await registryOver(Jwts, OtherJwts);
    await expect(moduleRef.init()).rejects.toThrow('two credential strategies for "jwt" (the second: OtherJwts)');
  });
});
