import { Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * Step 1 of a passkey login passed: `authenticatefinish {login_ticket, company_id}` may open the session, once,
 * within 60 seconds, on any instance. Only the ticket's SHA-256 is stored.
 */
@Entity({ name: 'login_ticket' })
export class LoginTicket {
  @PrimaryColumn({ name: 'ticket_hash', type: 'char', length: 64 })
  ticketHash: string;

  @Column({ name: 'employee_id', type: 'integer' })
  employeeId: number;

  @Column({ name: 'expires_at', type: 'timestamptz' })
  expiresAt: Date;
}
