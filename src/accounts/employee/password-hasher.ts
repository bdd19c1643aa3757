import { Injectable } from '@nestjs/common';
import * as argon2 from 'argon2';
import { AppConfig } from '../../platform/config/app-config';

/**
 * Hashes computed at once, at most. Each one allocates the configured memory cost (19 MiB by default) in a
 * libuv worker thread, so a flood of logins for made-up e-mails (each checked against a dummy hash) would
 * otherwise hold four of them, and take all the CPU the workers have. The blocks' retention after the flood is
 * the C allocator's: `npm start` sets MALLOC_MMAP_THRESHOLD_ so they are returned (docs/operations.md, Memory).
 */
export const MAX_CONCURRENT_HASHES = 2;

/** A counting semaphore: run() starts `task` when fewer than `limit` are running, else queues it. */
export class ConcurrencyLimit {
  private running = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(private readonly limit: number) {}

  get active(): number {
    return this.running;
  }

  get queued(): number {
    return this.waiting.length;
  }

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.running >= this.limit) await new Promise<void>((resolve) => this.waiting.push(resolve));
    else this.running++;
    try {
      return await task();
    } finally {
      // The slot passes straight to the next waiter, so `running` never exceeds the limit.
      const next = this.waiting.shift();
      if (next) next();
      else this.running--;
    }
  }
}

/** argon2id with the configured cost; verification reads the cost from the stored hash itself. */
@Injectable()
export class PasswordHasher {
  private dummyHash?: Promise<string>;
  readonly limit = new ConcurrencyLimit(MAX_CONCURRENT_HASHES);

  constructor(private readonly config: AppConfig) {}

  hash(password: string): Promise<string> {
    return this.limit.run(() =>
      argon2.hash(password, {
        type: argon2.argon2id,
        memoryCost: this.config.argon2.memoryKib,
        timeCost: this.config.argon2.timeCost,
        parallelism: this.config.argon2.parallelism,
      }),
    );
  }

  async verify(hash: string, password: string): Promise<boolean> {
    try {
      return await this.limit.run(() => argon2.verify(hash, password));
    } catch {
      return false;
    }
  }

  /**
   * Spends the same time as a real check, for an e-mail that has no account, so that response time does not
   * tell which e-mails exist.
   */
  async verifyAgainstDummy(password: string): Promise<false> {
    this.dummyHash ??= this.hash('dummy password that matches nothing');
    await this.verify(await this.dummyHash, password);
    return false;
  }
}
