import { Injectable } from '@nestjs/common';
import * as argon2 from 'argon2';
import { AppConfig } from '../config/app-config';

/** argon2id with the configured cost; verification reads the cost from the stored hash itself. */
@Injectable()
export class PasswordHasher {
  private dummyHash?: Promise<string>;

  constructor(private readonly config: AppConfig) {}

  hash(password: string): Promise<string> {
    return argon2.hash(password, {
      type: argon2.argon2id,
      memoryCost: this.config.argon2.memoryKib,
      timeCost: this.config.argon2.timeCost,
      parallelism: this.config.argon2.parallelism,
    });
  }

  async verify(hash: string, password: string): Promise<boolean> {
    try {
      return await argon2.verify(hash, password);
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
