import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AuthModule } from '../auth/auth.module';
import { Company } from './company.entity';
import { CompanyService } from './company.service';
import { WorkingCompanyController } from './working-company.controller';
import { WorkingCompanyService } from './working-company.service';

/** Companies, and the working-company switch of a login session (with the switcher's company list). */
@Module({
  imports: [TypeOrmModule.forFeature([Company]), AuthModule],
  controllers: [WorkingCompanyController],
  providers: [CompanyService, WorkingCompanyService],
  exports: [CompanyService],
})
export class CompanyModule {}
