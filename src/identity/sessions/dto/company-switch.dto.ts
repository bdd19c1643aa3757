import { ApiProperty } from '@nestjs/swagger';
import { CompanyRefDto } from './login-result.dto';
import { RecordIdProperty } from '../../../platform/common/http/record-id';

export class ChangeWorkingCompanyDto {
  @RecordIdProperty({ example: 2 })
  company_id: number;
}

export class AccountCompanyDto extends CompanyRefDto {
  @ApiProperty({ description: 'The company the requesting token is bound to' })
  current: boolean;
}

export class AccountCompanyListDto {
  @ApiProperty({ type: [AccountCompanyDto] })
  companies: AccountCompanyDto[];
}
