/** What changed; every instance evicts the matching cached credentials. */
export type RevocationNotice =
  | { type: 'session'; sessionId: string }
  | { type: 'token'; tokenId: string }
  | { type: 'api_key'; keyId: string }
  | { type: 'membership'; employeeId: number; companyId: number }
  /** A role of the company changed: every credential in it may carry other effective permissions now. */
  | { type: 'roles'; companyId: number }
  /** Something every credential of the account carries changed (its second factors). */
  | { type: 'employee'; employeeId: number }
  /** The company's policy changed: every credential of the company carries the policy it was read with. */
  | { type: 'company_policy'; companyId: number }
  /** Not a revocation: the operator changed the rate-limit overrides; every instance loads them again. */
  | { type: 'rate_limit_overrides' }
  /** Not a revocation: a security-event stream was added, removed or paused; deliverers look again. */
  | { type: 'event_streams' }
  /**
   * Never sent: delivered here when a transport listens again after losing its connection. Whatever was sent
   * meanwhile may never arrive, so everything kept on the strength of notices starts over.
   */
  | { type: 'resync' };

/** How long a transport may take to accept a notice before it counts as unavailable for this one. */
export const SEND_DEADLINE_MS = 500;

/** How notices travel between processes; the bus sends each notice over every transport there is. */
export interface Transport {
  readonly name: string;
  /** `resumed` is called each time it listens again after its connection was lost (notices may have been missed). */
  start(deliver: (message: string) => void, resumed: () => void): Promise<void>;
  /** Sends and returns how many other instances listen (and so should confirm). */
  send(message: string): Promise<number>;
  /** Sends without waiting for anything (confirmations). */
  reply(message: string): Promise<void>;
  stop(): Promise<void>;
}
