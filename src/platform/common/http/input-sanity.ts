import { type CanActivate, type ExecutionContext, Injectable } from '@nestjs/common';
import { ApiError, type FieldError } from '../errors/api-error';
import { undeclaredQueryParameter } from './declared-query';
import { RoutePlans } from './route-plan';

/** JSON bodies nested deeper than this are refused (docs/contract.md "Error bodies"). The body itself is level 1. */
export const MAX_INPUT_DEPTH = 32;

// U+0000 (PostgreSQL refuses it in text) or a surrogate half without its partner (not encodable as UTF-8).
// eslint-disable-next-line no-control-regex -- matching NUL is the point
const BAD_TEXT = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

function textProblem(text: string): string | null {
  if (!BAD_TEXT.test(text)) return null;
  return text.includes('\u0000')
    ? 'must not contain the NUL character (U+0000)'
    : 'must not contain an unpaired surrogate';
}

function join(parent: string, key: string): string {
  return parent === '' ? key : `${parent}.${key}`;
}

/**
 * The first reason why `input` (a parsed body, query or parameter object) cannot be accepted as text data, or
 * null. Iterative, and it stops at the depth limit, so a body nested thousands of levels deep costs no stack.
 */
export function findInputProblem(input: unknown, maxDepth = MAX_INPUT_DEPTH): FieldError | null {
  const pending: Array<{ value: unknown; path: string; depth: number }> = [{ value: input, path: '', depth: 0 }];
  while (pending.length > 0) {
    const { value, path, depth } = pending.pop()!;
    if (typeof value === 'string') {
      const problem = textProblem(value);
      if (problem) return { field: path || 'body', message: `${path || 'the value'} ${problem}` };
      continue;
    }
    if (value === null || typeof value !== 'object') continue;
    if (depth + 1 > maxDepth) {
      const top = path.split('.')[0] || 'body';
      return { field: top, message: `${top} is nested deeper than ${maxDepth} levels` };
    }
    const entries = Array.isArray(value)
      ? value.map((item, index) => [String(index), item] as const)
      : Object.entries(value);
    for (const [key, item] of entries) {
      const keyProblem = textProblem(key);
      if (keyProblem) {
        const where = path || 'body';
        return { field: where, message: `a field name in ${where} ${keyProblem}` };
      }
      pending.push({ value: item, path: join(path, key), depth: depth + 1 });
    }
  }
  return null;
}

/**
 * The one input-sanity layer: every body, query and path parameter of every route is checked here, after the
 * rate-limit and auth steps (the last step of the one global guard, RequestGuard, so a refused request still counts against
 * the rate limit and carries its headers) and before the pipes (class-transformer recurses, so a deeply nested
 * body must not reach it) and any handler (PostgreSQL refuses 0x00 in text, so no NUL may reach a query).
 *
 * A guard rather than an interceptor: the check is synchronous and decides pass or refuse, which is what a guard
 * is; any global interceptor makes Nest wrap every handler in rxjs `defer`/`mergeAll` and two
 * `AsyncResource.bind` calls, which measured about 110 µs of CPU per request, three times the rest of the path.
 */
@Injectable()
export class InputSanityGuard implements CanActivate {
  constructor(private readonly plans: RoutePlans) {}

  canActivate(context: ExecutionContext): boolean {
    if (context.getType() === 'http') {
      const request = context.getArgByIndex<{ body?: unknown; query?: unknown; params?: unknown }>(0);
      const problem =
        findInputProblem(request.params) ?? findInputProblem(request.query) ?? findInputProblem(request.body);
      if (problem) throw ApiError.validation(problem.message, [problem]);
      // docs/contract.md: every route refuses query parameters it does not declare.
      const { query } = this.plans.of(context.getHandler(), context.getClass());
      const undeclared = undeclaredQueryParameter(request.query, query);
      if (undeclared !== null) {
        const field = undeclared.slice(0, 64);
        throw ApiError.validation(`${field} is not a query parameter of this route`, [
          { field, message: 'is not a query parameter of this route' },
        ]);
      }
    }
    return true;
  }
}
