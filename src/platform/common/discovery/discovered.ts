import type { DiscoverableDecorator, DiscoveryService } from '@nestjs/core';

/** A provider found by its decorator: the instance and what the decorator said of it. */
export interface Discovered<T, M> {
  instance: T;
  meta: M;
  /** The class's name, for messages at start. */
  name: string;
}

/**
 * Every provider of the application marked with `decorator` (made by `DiscoveryService.createDecorator()`), each
 * once, in the order Nest registered them. For a registry's owner to call once at start (onModuleInit: every
 * singleton exists by then), so that requests read a plain array or map and never come here. A marked provider
 * must be a singleton: a request-scoped one has no instance to register, and is refused rather than skipped.
 */
export function discover<T, M>(discovery: DiscoveryService, decorator: DiscoverableDecorator<M>): Discovered<T, M>[] {
  const found = new Map<T, Discovered<T, M>>();
  for (const wrapper of discovery.getProviders({ metadataKey: decorator.KEY })) {
    if (!wrapper.isDependencyTreeStatic() || wrapper.instance === undefined || wrapper.instance === null) {
      throw new Error(`${String(wrapper.name)} is marked for discovery but is not a singleton`);
    }
    const instance = wrapper.instance as T;
    // One instance may be registered under several tokens (useExisting): it is still one entry.
    if (found.has(instance)) continue;
    const meta = discovery.getMetadataByDecorator(decorator, wrapper) as M;
    found.set(instance, { instance, meta, name: String(wrapper.name) });
  }
  return [...found.values()];
}
