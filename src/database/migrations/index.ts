import { CreateCompaniesEmployeesMemberships1763700000000 } from './1763700000000-CreateCompaniesEmployeesMemberships';
import { CreateSessionsTokensApiKeys1763700100000 } from './1763700100000-CreateSessionsTokensApiKeys';

/** Listed explicitly (not globbed) so the compiled app, ts-jest and the TypeORM CLI all see the same set. */
export const MIGRATIONS = [CreateCompaniesEmployeesMemberships1763700000000, CreateSessionsTokensApiKeys1763700100000];
