import { Company } from '../company/company.entity';
import { Employee } from '../employee/employee.entity';
import { Membership } from '../membership/membership.entity';

/** Every entity of the schema; a feature module adds its entity here and its migration beside the others. */
export const ENTITIES = [Company, Employee, Membership];
