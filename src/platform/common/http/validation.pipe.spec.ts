import 'reflect-metadata';
import { applyDecorators } from '@nestjs/common';
import { Type } from 'class-transformer';
import { IsArray, IsInt, IsNotEmpty, IsOptional, IsString, Max, MaxLength, Min, ValidateNested } from 'class-validator';
import { ApiError } from '../errors/api-error';
import { createValidationPipe } from './validation.pipe';

// Two ways of stacking the same rules: class-validator reports stacked decorators bottom-up and
// applyDecorators' top-down, so the pipe must not depend on either.
const IdRules = () => applyDecorators(IsInt(), Min(1), Max(2_147_483_647));

class Line {
  @IdRules()
  product_id: number;
}

class Body {
  @IsString()
  @IsNotEmpty()
  @MaxLength(256)
  password: string;

  @IdRules()
  company_id: number;

  @IsOptional()
  @IsString()
  @MaxLength(8)
  note?: string;

  @IsOptional()
  @IsArray()
  @ValidateNested({ each: true })
  @Type(() => Line)
  lines?: Line[];
}

async function details(value: unknown) {
  try {
    await createValidationPipe().transform(value, { type: 'body', metatype: Body });
  } catch (error) {
    const body = (error as ApiError).getResponse() as { message: string; details: unknown };
    return { message: body.message, details: body.details };
  }
  throw new Error('expected a validation error');
}

describe('the validation pipe: one message per field, the first rule it broke', () => {
  it('a missing field is "required", not its length rule', async () => {
    expect(await details({ company_id: 1 })).toEqual({
      message: 'password is required',
      details: [{ field: 'password', message: 'password is required' }],
    });
  });

  it('a wrong type is the type message alone, whichever way the rules were stacked', async () => {
    expect(await details({ password: 'x', company_id: '1' })).toEqual({
      message: 'company_id must be an integer number',
      details: [{ field: 'company_id', message: 'company_id must be an integer number' }],
    });
    expect((await details({ password: 7, company_id: 1 })).details).toEqual([
      { field: 'password', message: 'password must be a string' },
    ]);
  });

  it('then emptiness, then range', async () => {
    expect((await details({ password: '', company_id: 0 })).details).toEqual([
      { field: 'password', message: 'password should not be empty' },
      { field: 'company_id', message: 'company_id must not be less than 1' },
    ]);
    expect((await details({ password: 'x'.repeat(300), company_id: 2 ** 31 })).details).toEqual([
      { field: 'password', message: 'password must be shorter than or equal to 256 characters' },
      { field: 'company_id', message: 'company_id must not be greater than 2147483647' },
    ]);
  });

  it('every field of an empty body once, an unknown field as such, and nested fields by their path', async () => {
    expect((await details({})).details).toEqual([
      { field: 'password', message: 'password is required' },
      { field: 'company_id', message: 'company_id is required' },
    ]);
    expect((await details({ password: 'x', company_id: 1, admin: true })).details).toEqual([
      { field: 'admin', message: 'property admin should not exist' },
    ]);
    expect((await details({ password: 'x', company_id: 1, lines: [{ product_id: 1 }, {}] })).details).toEqual([
      { field: 'lines.1.product_id', message: 'lines.1.product_id is required' },
    ]);
  });

  it('null is a wrong type, not a missing field; and no value is ever quoted back', async () => {
    expect((await details({ password: null, company_id: 1, note: 'hunter2-secret' })).details).toEqual([
      { field: 'password', message: 'password must be a string' },
      { field: 'note', message: 'note must be shorter than or equal to 8 characters' },
    ]);
    expect(JSON.stringify(await details({ password: 'hunter2', company_id: 'hunter2' }))).not.toContain('hunter2');
  });
});
