import { Injectable, type OnModuleInit } from '@nestjs/common';
import { DiscoveryService } from '@nestjs/core';
import { discover } from '../../../platform/common/discovery/discovered';
import { CredentialKind, type CredentialStrategy } from './credential-strategy';
import type { Principal } from '../../../access/rules/principal';

type Kind = Principal['kind'];

/**
 * The credential strategies of the application, found once at start among the providers marked with
 * {@link CredentialKind} (src/identity/sessions/ for JWTs, src/identity/api-keys/ for API keys, which own the tables the look-ups
 * read): requests then read a plain array and map. Their `accepts` never overlap (`key:secret` is an API key,
 * anything else a JWT), so the order they are found in does not matter.
 */
@Injectable()
export class CredentialStrategies implements OnModuleInit {
  private all: readonly CredentialStrategy[] = [];
  private readonly byKind = new Map<Kind, CredentialStrategy>();

  /** `discovery`: absent only for {@link of}. */
  constructor(private readonly discovery?: DiscoveryService) {}

  /** A fixed set, for unit tests and tools that assemble no application. */
  static of(strategies: Partial<Record<Kind, CredentialStrategy>>): CredentialStrategies {
    const registry = new CredentialStrategies();
    for (const [kind, strategy] of Object.entries(strategies)) registry.add(kind as Kind, strategy, kind);
    return registry;
  }

  onModuleInit(): void {
    if (this.discovery === undefined) return;
    for (const found of discover<CredentialStrategy, Kind>(this.discovery, CredentialKind)) {
      this.add(found.meta, found.instance, found.name);
    }
  }

  /** The strategy for this `Authorization` value's form, if any. */
  forHeader(header: string): CredentialStrategy | undefined {
    return this.all.find((candidate) => candidate.accepts(header));
  }

  /** The strategy that makes principals of `kind`. */
  ofKind(kind: Kind): CredentialStrategy | undefined {
    return this.byKind.get(kind);
  }

  private add(kind: Kind, strategy: CredentialStrategy, name: string): void {
    if (this.byKind.has(kind)) throw new Error(`two credential strategies for "${kind}" (the second: ${name})`);
    this.byKind.set(kind, strategy);
    this.all = [...this.all, strategy];
  }
}
