import { ApiKey } from './identity/api-keys/api-key.entity';
import { AuditEvent } from './audit/recorder/audit-event.entity';
import { LoginSession } from './identity/sessions/login-session.entity';
import { IssuedToken } from './identity/sessions/issued-token.entity';
import { Company } from './accounts/company/company.entity';
import { CompanyPolicy } from './accounts/company-policy/company-policy.entity';
import { Employee } from './accounts/employee/employee.entity';
import { Membership } from './accounts/membership/membership.entity';
import { MemberRole, Role } from './accounts/roles/role.entity';
import { LoginTicket } from './identity/passkeys/login-ticket.entity';
import { Passkey } from './identity/passkeys/passkey.entity';
import { WebauthnChallenge } from './identity/passkeys/webauthn-challenge.entity';
import { RateLimitOverride } from './rate-limiting/overrides/rate-limit-override.entity';
import { RateLimitQuota } from './rate-limiting/quotas/rate-limit-quota.entity';
import { CreateRateLimitQuotas1795553960000 } from './rate-limiting/quotas/migrations/1795553960000-CreateRateLimitQuotas';
import { ScimToken } from './staff/scim/scim-token.entity';
import { EventStream, EventStreamDelivery, EventStreamOutboxRow } from './audit/event-streams/event-stream.entity';
import type { DataSourceOptions } from 'typeorm';
import type { AppConfig } from './platform/config/app-config';
import { buildDataSourceOptions } from './platform/database/data-source-options';
import { MIGRATIONS } from './platform/database/migrations';
import type { DatabaseSchema } from './platform/database/schema';
import { featureModules } from './feature-modules';

// One per line, so that two changes at once touch different lines. A module added with `npm run new:module` is
// not listed here: its @Feature declares its entities and migrations.
const CORE_ENTITIES = [
  Company,
  Employee,
  Membership,
  LoginSession,
  IssuedToken,
  ApiKey,
  AuditEvent,
  RateLimitOverride,
  RateLimitQuota,
  ScimToken,
  EventStream,
  EventStreamOutboxRow,
  EventStreamDelivery,
  Passkey,
  WebauthnChallenge,
  LoginTicket,
  Role,
  MemberRole,
  CompanyPolicy,
];

/**
 * Core migrations kept in their owner module (the older ones sit in platform/database/migrations, whose index
 * cannot import a higher area); one per line. TypeORM runs all migrations in timestamp order.
 */
const OWNED_MIGRATIONS = [CreateRateLimitQuotas1795553960000];

/** The schema: the core modules' entities and the migrations, then what each module of src/features.ts declares. */
export function databaseSchema(): DatabaseSchema {
  const features = featureModules();
  return {
    entities: [...CORE_ENTITIES, ...features.flatMap((feature) => feature.entities)],
    migrations: [...MIGRATIONS, ...OWNED_MIGRATIONS, ...features.flatMap((feature) => feature.migrations)],
  };
}

/**
 * The one description of the database with this service's schema: used by the app (CoreModule), the operator CLI,
 * `npm run migration:run`, the TypeORM CLI (ormconfig.ts), the tests and the benchmarks.
 */
export function dataSourceOptions(config: AppConfig, target: 'pooled' | 'direct' = 'pooled'): DataSourceOptions {
  return buildDataSourceOptions(config, databaseSchema(), target);
}
