import { CreateCompaniesEmployeesMemberships1763700000000 } from './1763700000000-CreateCompaniesEmployeesMemberships';
import { CreateSessionsTokensApiKeys1763700100000 } from './1763700100000-CreateSessionsTokensApiKeys';
import { CreateAuditEvents1795552708000 } from './1795552708000-CreateAuditEvents';
import { CreateStaffAccountTables1795552800000 } from './1795552800000-CreateStaffAccountTables';
import { CreateRateLimitOverrides1795552900000 } from './1795552900000-CreateRateLimitOverrides';
import { AddSessionLoginMethod1795553000000 } from './1795553000000-AddSessionLoginMethod';
import { CreateSsoTables1795553100000 } from './1795553100000-CreateSsoTables';
import { CreatePasskeys1795553200000 } from './1795553200000-CreatePasskeys';
import { CreateScimTokens1795553300000 } from './1795553300000-CreateScimTokens';
import { CreateEventStreams1795553400000 } from './1795553400000-CreateEventStreams';
import { ProveSsoEmailDomains1795553500000 } from './1795553500000-ProveSsoEmailDomains';
import { BindSsoFlowsToBrowsers1795553700000 } from './1795553700000-BindSsoFlowsToBrowsers';
import { CapScimTokens1795553800000 } from './1795553800000-CapScimTokens';
import { CreateCompanyPolicy1795553900000 } from './1795553900000-CreateCompanyPolicy';
import { CreateRoles1795553950000 } from './1795553950000-CreateRoles';
import { AddSessionSecondFactor1795554000000 } from './1795554000000-AddSessionSecondFactor';

/**
 * Listed explicitly (not globbed) so the compiled app, ts-jest and the TypeORM CLI all see the same set; one per
 * line, in timestamp order, so that two modules added at once touch different lines.
 */
export const MIGRATIONS = [
  CreateCompaniesEmployeesMemberships1763700000000,
  CreateSessionsTokensApiKeys1763700100000,
  CreateAuditEvents1795552708000,
  CreateStaffAccountTables1795552800000,
  CreateRateLimitOverrides1795552900000,
  AddSessionLoginMethod1795553000000,
  CreateSsoTables1795553100000,
  CreatePasskeys1795553200000,
  CreateScimTokens1795553300000,
  CreateEventStreams1795553400000,
  ProveSsoEmailDomains1795553500000,
  BindSsoFlowsToBrowsers1795553700000,
  CapScimTokens1795553800000,
  CreateCompanyPolicy1795553900000,
  CreateRoles1795553950000,
  AddSessionSecondFactor1795554000000,
];
