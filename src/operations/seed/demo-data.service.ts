import { randomBytes } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { APP_LOGGER } from '../../platform/common/logging/logging.module';
import type { AppLogger } from '../../platform/common/logging/logger';
import { issueApiKey } from '../../identity/api-keys/api-key-records';
import { Clock } from '../../platform/common/clock/clock';
import { AppConfig } from '../../platform/config/app-config';
import { countCompanies, insertCompanies } from '../../accounts/company/company-records';
import { countEmployees, insertEmployee } from '../../accounts/employee/employee-records';
import { PasswordHasher } from '../../accounts/employee/password-hasher';
import { addMembership } from '../../accounts/membership/membership-records';
import { placeOrder } from '../../features/orders/order-records';
import { ALL_PERMISSIONS } from '../../access/permissions/permission';
import { insertProducts } from '../../features/products/product-records';
import { DEMO_API_KEY, DEMO_COMPANIES } from './demo-catalogue';

const SEED_LOCK_KEY = 7_341_920_554;
export const DEMO_OWNER_EMAIL = 'owner@demo.example';
export const DEMO_COMPANY_NAMES = DEMO_COMPANIES.map((company) => company.name);

/** What a first start shows once: the owner's login, a read-only API key, and the companies (with their ids). */
export interface DemoCredentials {
  email: string;
  password: string;
  /** `key:secret` of the owner in the first company, holding {@link DEMO_API_KEY}'s permissions. */
  apiKey: string;
  companies: Array<{ id: number; name: string }>;
}

/**
 * docs/contract.md: an empty embedded database gets demo data on first start unless SEED_DEMO=false; PostgreSQL only
 * with SEED_DEMO=true; and under NODE_ENV=production never unless SEED_DEMO=true, whatever the database, so a
 * production start cannot create a known account by accident.
 */
export function wantsDemoData(config: Pick<AppConfig, 'seedDemo' | 'usesEmbeddedDatabase' | 'isProduction'>): boolean {
  if (config.seedDemo !== undefined) return config.seedDemo;
  return config.usesEmbeddedDatabase && !config.isProduction;
}

/**
 * Gives a first start something to log in with and something to read: two companies, a few products and orders
 * in each (demo-catalogue.ts), one owner who belongs to both with every permission, and a read-only API key of
 * the owner's. The key is printed with the password and under the same rules (it is as much a secret). Only on an empty database, and only where {@link wantsDemoData} says so. main.ts calls
 * {@link seedOnFirstStart} once the port is bound: a start that fails (the port taken) must not have created an
 * account whose one-time password scrolled away above the error.
 */
@Injectable()
export class DemoDataService {
  constructor(
    private readonly config: AppConfig,
    private readonly dataSource: DataSource,
    private readonly hasher: PasswordHasher,
    private readonly clock: Clock,
    @Inject(APP_LOGGER) private readonly logger: AppLogger,
    // Only for ordering: demo data goes in after the migrations have run.
    @Inject('MIGRATIONS_APPLIED') _migrationsApplied: unknown,
  ) {}

  async seedOnFirstStart(): Promise<void> {
    if (!wantsDemoData(this.config)) return;
    const created = await this.seedIfEmpty();
    if (created) this.announce(created);
  }

  /** Returns the owner's credentials when it created the data, `null` when the database already had some. */
  async seedIfEmpty(): Promise<DemoCredentials | null> {
    const password = randomBytes(12).toString('base64url');
    const passwordHash = await this.hasher.hash(password);
    return this.dataSource.transaction(async (manager) => {
      // Instances starting together must not both decide the database is empty.
      await manager.query('SELECT pg_advisory_xact_lock($1)', [SEED_LOCK_KEY]);
      const existing = (await countCompanies(manager)) + (await countEmployees(manager));
      if (existing > 0) return null;
      const now = this.clock.now();
      const companies = await insertCompanies(manager, DEMO_COMPANY_NAMES);
      const owner = await insertEmployee(manager, { email: DEMO_OWNER_EMAIL, name: 'Demo Owner', passwordHash });
      for (const [index, company] of companies.entries()) {
        await addMembership(manager, owner.id, company.id, [ALL_PERMISSIONS]);
        const { products, orders } = DEMO_COMPANIES[index];
        const ids = await insertProducts(manager, company.id, products, now);
        for (const lines of orders) {
          const order = { lines: lines.map(({ product, quantity }) => ({ product_id: ids[product], quantity })) };
          await placeOrder(manager, company.id, order, now);
        }
      }
      const key = await issueApiKey(manager, {
        employeeId: owner.id,
        companyId: companies[0].id,
        ...DEMO_API_KEY,
        now,
      });
      return {
        email: DEMO_OWNER_EMAIL,
        password,
        apiKey: key.apiKey,
        companies: companies.map(({ id, name }) => ({ id, name })),
      };
    });
  }

  /**
   * The one deliberate exception to "no secret in the output": printed once, as plain text on standard output
   * rather than as a log record, so log shippers that parse JSON lines do not collect the password or the key.
   */
  private announce({ email, password, apiKey, companies }: DemoCredentials): void {
    this.logger.info({ email, companies: DEMO_COMPANY_NAMES }, 'demo data created');
    const products = DEMO_COMPANIES.reduce((sum, company) => sum + company.products.length, 0);
    process.stdout.write(
      [
        '',
        `  Demo data created: two companies (${products} products and a few orders between them) and one owner`,
        '  who belongs to both.',
        `    e-mail:   ${email}`,
        `    password: ${password}`,
        `    API key:  ${apiKey}`,
        `              (${companies[0].name}, read-only: ${DEMO_API_KEY.permissions.join(', ')})`,
        '  These are shown only now. Lost the password? Set a new one with',
        `    npm run cli -- employee:set-password --email ${email}`,
        '  (or stop the service and remove the data folder to start afresh). More API keys: /admin, "API keys".',
        '',
      ].join('\n') + '\n',
    );
  }
}
