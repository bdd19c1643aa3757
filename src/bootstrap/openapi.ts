import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { DocumentBuilder, type OpenAPIObject, SwaggerModule } from '@nestjs/swagger';

const RATE_LIMIT_HEADERS = {
  'X-Rate-Limit-Limit': {
    description: 'Requests allowed in the 3-second window of this counter',
    schema: { type: 'integer', example: 30 },
  },
  'X-Rate-Limit-Remaining': {
    description: 'Requests still allowed in the current window',
    schema: { type: 'integer', example: 29 },
  },
  'X-Rate-Limit-Identifier': {
    description:
      'The counter: `{ip}|{METHOD}|{controller}|{token hash}`; the hash is the first 16 hex characters of the ' +
      'SHA-256 of the Authorization header, or `-` without a valid credential',
    schema: { type: 'string', example: '203.0.113.7|GET|products|9f86d081884c7d65' },
  },
};

const RATE_LIMITED_RESPONSE = {
  description:
    'error_rate_limit_exceed: the limit of this counter for the 3-second window is reached. Wait for the ' +
    'window (Retry-After seconds) and retry.',
  headers: {
    ...RATE_LIMIT_HEADERS,
    'Retry-After': { description: 'Seconds until the window ends (at least 1)', schema: { type: 'integer' } },
  },
  content: {
    'application/json': {
      schema: { type: 'array', items: { type: 'string', enum: ['error_rate_limit_exceed'] } },
      example: ['error_rate_limit_exceed'],
    },
  },
};

type Operation = { responses?: Record<string, { headers?: Record<string, unknown>; description?: string }> };

/**
 * Adds what every `/v1` operation shares to the generated document: the rate-limit headers on each response
 * and the general 429. A per-account limit (company switch, failed logins) documents its own object-form 429,
 * which is kept, with the headers added.
 */
export function withRateLimitDocumentation(document: OpenAPIObject): OpenAPIObject {
  for (const [path, item] of Object.entries(document.paths)) {
    if (!path.startsWith('/v1/')) continue;
    for (const operation of Object.values(item as Record<string, Operation>)) {
      if (!operation || typeof operation !== 'object' || !operation.responses) continue;
      for (const response of Object.values(operation.responses)) {
        response.headers = { ...RATE_LIMIT_HEADERS, ...response.headers };
      }
      const own = operation.responses['429'];
      operation.responses['429'] = own
        ? {
            ...own,
            description: `${own.description ?? ''} Otherwise, the request rate limit: body ["error_rate_limit_exceed"].`,
            headers: RATE_LIMITED_RESPONSE.headers,
          }
        : RATE_LIMITED_RESPONSE;
    }
  }
  return document;
}

export function setUpOpenApi(app: NestFastifyApplication): void {
  const document = SwaggerModule.createDocument(
    app,
    new DocumentBuilder()
      .setTitle('Staff auth and rate limit API')
      .setDescription(
        'Company-bound staff login tokens and per-client rate limits. Protected routes take the raw credential ' +
          '(a JWT, or an API key `key:secret`) in the `Authorization` header, with no `Bearer` prefix; a ' +
          'credential in the `__jwtAuthorization` query parameter is refused. Errors answer ' +
          '`{"error": ["<code>"], "message": "..."}`.',
      )
      .setVersion('1')
      .addApiKey(
        { type: 'apiKey', in: 'header', name: 'Authorization', description: 'The raw JWT or key:secret' },
        'Authorization',
      )
      .build(),
  );
  SwaggerModule.setup('docs', app, withRateLimitDocumentation(document), {
    jsonDocumentUrl: 'docs/openapi.json',
    yamlDocumentUrl: 'docs/openapi.yaml',
    customSiteTitle: 'Staff auth API',
  });
}
