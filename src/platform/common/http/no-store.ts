import { applyDecorators, Header } from '@nestjs/common';
import type { HeaderObject } from '@nestjs/swagger';

/**
 * docs/contract.md: every answer carrying a token, refresh token, API key secret, invitation or reset code, or TOTP
 * secret has `Cache-Control: no-store`, so no browser or proxy cache keeps a copy. Set by Nest's router on the
 * success answer (no interceptor on the hot path); error answers carry no secret.
 */
export const NoStore = () => applyDecorators(Header('Cache-Control', 'no-store'));

/** The header as the OpenAPI document describes it on those answers. */
export const NO_STORE_HEADERS: Record<string, HeaderObject> = {
  'Cache-Control': {
    description: '`no-store`: the body carries a secret that no cache may keep',
    required: true,
    schema: { type: 'string', enum: ['no-store'] },
  },
};
