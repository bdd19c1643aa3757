import { Body, Controller, Get, Module, Post, Query } from '@nestjs/common';
import { Type } from 'class-transformer';
import { IsInt, IsOptional, IsString, Max, MaxLength, Min, ValidateNested } from 'class-validator';
import { Public } from '../../src/access/rules/auth.decorator';
import { CompanyModule } from '../../src/accounts/company/company.module';
import { CompanyService } from '../../src/accounts/company/company.service';

class EchoTagDto {
  @IsString()
  @MaxLength(10)
  label: string;
}

class EchoDto {
  @IsString()
  @MaxLength(20)
  name: string;

  @IsInt()
  @Min(1)
  count: number;

  @IsOptional()
  @ValidateNested()
  @Type(() => EchoTagDto)
  tag?: EchoTagDto;
}

class SlowQuery {
  @Type(() => Number)
  @IsInt()
  @Min(0)
  @Max(5000)
  ms: number;
}

/**
 * Routes that exist only in tests, to drive the app's shared machinery (validation, error filter, database
 * errors, graceful shutdown) before any feature module has routes of its own.
 */
@Public()
@Controller({ path: 'probe', version: '1' })
export class ProbeController {
  constructor(private readonly companies: CompanyService) {}

  @Post('echo')
  echo(@Body() body: EchoDto) {
    return body;
  }

  @Get('boom')
  boom(): never {
    throw new Error('kaboom: internal detail that must not reach the client');
  }

  @Get('companies')
  async companyCount() {
    return { count: await this.companies.count() };
  }

  @Get('slow')
  async slow(@Query() query: SlowQuery) {
    await new Promise((resolve) => setTimeout(resolve, query.ms));
    return { waited: query.ms };
  }
}

@Module({ imports: [CompanyModule], controllers: [ProbeController] })
export class ProbeModule {}
