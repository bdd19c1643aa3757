import { ApiKey } from '../api-keys/api-key.entity';
import { AuditEvent } from '../audit/audit-event.entity';
import { LoginSession } from '../sessions/login-session.entity';
import { IssuedToken } from '../sessions/issued-token.entity';
import { Company } from '../company/company.entity';
import { Employee } from '../employee/employee.entity';
import { StoredFile } from '../files/file.entity';
import { Membership } from '../membership/membership.entity';
import { OrderLine } from '../orders/order-line.entity';
import { Order } from '../orders/order.entity';
import { Product } from '../products/product.entity';
import { MarketingConversation } from '../marketing-conversations/conversation.entity';
import { MarketingMessage } from '../marketing-conversations/message.entity';
import { LoginTicket } from '../passkeys/login-ticket.entity';
import { Passkey } from '../passkeys/passkey.entity';
import { WebauthnChallenge } from '../passkeys/webauthn-challenge.entity';
import { RateLimitOverride } from '../rate-limit-overrides/rate-limit-override.entity';
import { ScimToken } from '../scim/scim-token.entity';
import { EventStream, EventStreamDelivery, EventStreamOutboxRow } from '../event-streams/event-stream.entity';

/**
 * Every entity of the schema, one per line so that two modules added at once touch different lines. A feature
 * module adds its entity here (import and entry) and its migration to migrations/index.ts.
 */
export const ENTITIES = [
  Company,
  Employee,
  Membership,
  LoginSession,
  IssuedToken,
  ApiKey,
  Product,
  Order,
  OrderLine,
  MarketingConversation,
  MarketingMessage,
  StoredFile,
  AuditEvent,
  RateLimitOverride,
  ScimToken,
  EventStream,
  EventStreamOutboxRow,
  EventStreamDelivery,
  Passkey,
  WebauthnChallenge,
  LoginTicket,
];
