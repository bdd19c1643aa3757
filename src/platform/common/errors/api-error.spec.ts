import { HttpStatus } from '@nestjs/common';
import { ApiError } from './api-error';
import { ErrorCode } from './error-codes';

describe('ApiError', () => {
  const framesOf = (error: Error) => (error.stack ?? '').split('\n').filter((line) => line.trim().startsWith('at '));

  it('captures no stack for a client error (4xx), and leaves Error.stackTraceLimit as it was', () => {
    const limit = Error.stackTraceLimit;
    const limited = ApiError.requestRateLimited(2);
    const invalid = ApiError.validation('bad');
    expect(framesOf(limited)).toEqual([]);
    expect(framesOf(invalid)).toEqual([]);
    expect(Error.stackTraceLimit).toBe(limit);
    expect(framesOf(new Error('an ordinary error'))).not.toEqual([]);
  });

  it('keeps the stack of a server error (5xx): that one is logged with it', () => {
    const unavailable = new ApiError(ErrorCode.ServiceUnavailable, HttpStatus.SERVICE_UNAVAILABLE, 'down');
    expect(framesOf(unavailable)).not.toEqual([]);
  });

  it('still answers with the contract body, status and headers', () => {
    const limited = ApiError.requestRateLimited(0.2);
    expect(limited.getStatus()).toBe(429);
    expect(limited.rawBody).toEqual(['error_rate_limit_exceed']);
    expect(limited.headers).toEqual({ 'retry-after': '1' });
    expect(ApiError.notFound().getResponse()).toEqual({
      error: ['error_not_found'],
      message: 'The requested resource was not found.',
    });
  });
});
