import { HttpStatus, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { AuditRecorder } from '../../audit/recorder/audit-recorder.service';
import { requestContext } from '../../audit/recorder/audit-actor';
import type { Principal } from '../../access/rules/principal';
import type { ClientInfo } from '../../platform/common/http/client-info';
import { RevocationBus } from '../../platform/revocation/revocation-bus';
import { Clock } from '../../platform/common/clock/clock';
import { ApiError } from '../../platform/common/errors/api-error';
import { ErrorCode } from '../../platform/common/errors/error-codes';
import { removeMember } from './member-removal';
import { coversAll } from '../../access/permissions/permission';

const denied = (message: string) => new ApiError(ErrorCode.PermissionDenied, HttpStatus.FORBIDDEN, message);

/** DELETE /v1/users/{id}: the employee leaves the caller's company; the account and its other companies stay. */
@Injectable()
export class UserRemovalService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly bus: RevocationBus,
    private readonly clock: Clock,
    private readonly audit: AuditRecorder,
  ) {}

  async remove(principal: Principal, employeeId: number, client: ClientInfo): Promise<void> {
    const companyId = principal.companyId;
    const now = this.clock.now();
    const removed = await this.dataSource.transaction(async (manager) => {
      const membership = await removeMember(manager, employeeId, companyId, now, (permissions) => {
        if (employeeId === principal.employeeId) {
          throw denied('You cannot remove yourself from the company.');
        }
        if (!coversAll(principal.permissions, permissions)) {
          throw denied('This employee holds permissions you do not; only someone holding them all can remove them.');
        }
      });
      if (membership) {
        await this.audit.record(manager, {
          type: 'membership.removed',
          companyId,
          ...requestContext(principal, client),
          subject: { kind: 'employee', id: employeeId, email: membership.email },
          details: { permissions: membership.permissions },
        });
      }
      return membership;
    });
    if (!removed) throw ApiError.notFound('No such employee in this company.');
    // After the commit; it returns once every instance confirmed, so the next request anywhere is refused.
    await this.bus.publish({ type: 'membership', employeeId, companyId });
  }
}
