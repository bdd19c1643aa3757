import {
  Body,
  Controller,
  Delete,
  Get,
  HttpCode,
  HttpStatus,
  Module,
  Options,
  Param,
  Patch,
  Post,
  Put,
} from '@nestjs/common';
import { IsInt, IsOptional, Min } from 'class-validator';
import { Auth, Public } from '../../src/access/rules/auth.decorator';
import { NoRateLimit, RateLimit } from '../../src/access/rules/rate-limit.decorator';

class ProbeBody {
  @IsOptional()
  @IsInt()
  @Min(0)
  n?: number;
}

/**
 * Stand-ins for the API groups (products, orders, files, marketingconversations), so the rate limiter can be
 * driven end to end without their feature modules' data: every method the table names, the per-controller
 * overrides, an exempt route, routes that need a credential or a permission, and one that fails. Each lives at
 * `probe-<group>` (the real controllers own `/v1/<group>`) and counts in the real group's counter.
 */
@Public()
@RateLimit({ group: 'products' })
@Controller({ path: 'probe-products', version: '1' })
export class ProductsProbeController {
  @Get()
  list() {
    return { data: [] };
  }

  @Get('boom')
  boom(): never {
    throw new Error('probe failure');
  }

  @Get('webhook')
  @NoRateLimit()
  webhook() {
    return { exempt: true };
  }

  @Get('secure')
  @Auth()
  secure() {
    return { secure: true };
  }

  @Post('admin')
  @Auth({ permission: 'products:write' })
  @HttpCode(HttpStatus.OK)
  admin() {
    return { admin: true };
  }

  @Get(':id')
  one(@Param('id') id: string) {
    return { id };
  }

  @Post()
  create(@Body() body: ProbeBody) {
    return { created: body.n ?? null };
  }

  @Put(':id')
  replace(@Param('id') id: string) {
    return { id };
  }

  @Patch(':id')
  update(@Param('id') id: string) {
    return { id };
  }

  @Delete(':id')
  @HttpCode(HttpStatus.NO_CONTENT)
  remove(): void {}

  @Options()
  @HttpCode(HttpStatus.NO_CONTENT)
  options(): void {}
}

/** A group whose reads are public and whose writes need a credential. */
@RateLimit({ group: 'orders' })
@Controller({ path: 'probe-orders', version: '1' })
export class OrdersProbeController {
  @Get()
  @Public()
  list() {
    return { data: [] };
  }

  @Get('mine')
  @Auth()
  mine() {
    return { data: [] };
  }

  @Post()
  @Auth({ permission: 'orders:write' })
  create() {
    return { created: true };
  }
}

@Public()
@RateLimit({ group: 'files', limits: { POST: 30 } })
@Controller({ path: 'probe-files', version: '1' })
export class FilesProbeController {
  @Post()
  upload() {
    return { uploaded: true };
  }

  @Post('addimagefromurl')
  addImageFromUrl() {
    return { added: true };
  }

  @Put(':id')
  replace(@Param('id') id: string) {
    return { id };
  }
}

@Public()
@RateLimit({ group: 'marketingconversations', limits: { POST: 60 } })
@Controller({ path: 'probe-marketingconversations', version: '1' })
export class MarketingConversationsProbeController {
  @Post(':id/messages')
  send(@Param('id') id: string) {
    return { id };
  }

  @Get()
  list() {
    return { data: [] };
  }
}

@Module({
  controllers: [
    ProductsProbeController,
    OrdersProbeController,
    FilesProbeController,
    MarketingConversationsProbeController,
  ],
})
export class RateLimitProbeModule {}

/**
 * A feature module's costly route (docs/adding-a-feature-module.md, "Rate limits"): `GET /v1/probe-exports`
 * takes 5 slots of the `exports` GET bucket, its cheap sibling `GET /v1/probe-exports/status` one of the same
 * bucket. No route of the source's table declares a cost; this one exists for the tests of cost.
 */
@Public()
@RateLimit({ group: 'exports' })
@Controller({ path: 'probe-exports', version: '1' })
export class ExportsProbeController {
  @Get()
  @RateLimit({ cost: 5 })
  export() {
    return { exported: true };
  }

  @Get('status')
  status() {
    return { ready: true };
  }
}

@Module({ controllers: [ExportsProbeController] })
export class CostProbeModule {}
