import { Module } from '@nestjs/common';
import { CompanyService } from './company.service';

/**
 * Companies: the table and its operations (company-records.ts for other folders' transactions). The working
 * company of a login session is the session's (src/identity/sessions/).
 */
@Module({
  providers: [CompanyService],
  exports: [CompanyService],
})
export class CompanyModule {}
