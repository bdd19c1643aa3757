import { ApiKey } from '../api-keys/api-key.entity';
import { LoginSession } from '../auth/sessions/login-session.entity';
import { IssuedToken } from '../auth/tokens/issued-token.entity';
import { Company } from '../company/company.entity';
import { Employee } from '../employee/employee.entity';
import { Membership } from '../membership/membership.entity';

/** Every entity of the schema; a feature module adds its entity here and its migration beside the others. */
export const ENTITIES = [Company, Employee, Membership, LoginSession, IssuedToken, ApiKey];
