'use strict';
/**
 * Peer row: GET /v1/users/me on plain Fastify with the ecosystem's own plugins, doing the service's job for that
 * route: @fastify/rate-limit (its fixed-window store in memory, or its Redis store when REDIS_URL is set) keyed
 * by ip|method|group|token hash, @fastify/jwt verifying the raw HS256 JWT of `Authorization` (its verifier cache
 * on, as the service caches verifications), an in-memory revocation set, refusal of a credential in the
 * `__jwtAuthorization` query parameter, a permission check and the same JSON. Headers: the plugin's own limit
 * and remaining (x-ratelimit-*, Retry-After on a 429) and X-Rate-Limit-Identifier.
 * Env: PEER_SECRET, PEER_BODY, PEER_LIMIT, REDIS_URL, PORT. Logs `{"msg":"listening","url","token"}`.
 */
const { createHash } = require('node:crypto');
const Fastify = require('fastify');
const { issueToken, peerSettings } = require('./lib/peer-token');

const { secret, body, limit } = peerSettings();
const me = JSON.parse(body);
const revoked = new Set();
const hashes = new Map(); // token → token hash, as the service keeps it with the credential

(async () => {
  const app = Fastify({ logger: false });
  await app.register(require('@fastify/jwt'), { secret, verify: { cache: true } });

  /** The credential as the limiter's key needs it: verified, not revoked; the principal for the handler. */
  function judge(request) {
    const token = request.headers.authorization;
    if (!token) return '-';
    let payload;
    try {
      payload = app.jwt.verify(token);
    } catch {
      return '-';
    }
    if (revoked.has(payload.jti)) return '-';
    request.principal = payload;
    let hash = hashes.get(token);
    if (hash === undefined) {
      if (hashes.size > 100_000) hashes.clear();
      hash = createHash('sha256').update(token).digest('hex').slice(0, 16);
      hashes.set(token, hash);
    }
    return hash;
  }

  let redis;
  if (process.env.REDIS_URL) {
    const Redis = require('ioredis');
    redis = new Redis(process.env.REDIS_URL, { enableOfflineQueue: false, maxRetriesPerRequest: 1 });
    await new Promise((resolve) => redis.once('ready', resolve));
  }
  await app.register(require('@fastify/rate-limit'), {
    max: limit,
    timeWindow: 3000,
    ...(redis ? { redis, nameSpace: `peer-fastify-${process.pid}-` } : {}),
    keyGenerator: (request) => {
      request.identifier = `${request.ip}|${request.method}|users|${judge(request)}`;
      return request.identifier;
    },
    addHeaders: { 'x-ratelimit-reset': false },
    addHeadersOnExceeding: { 'x-ratelimit-reset': false },
  });

  app.get(
    '/v1/users/me',
    {
      preHandler: (request, reply, done) => {
        reply.header('x-rate-limit-identifier', request.identifier);
        if (request.query.__jwtAuthorization !== undefined) {
          reply.code(400).send({ error: ['error_validation'] });
        } else if (!request.principal) {
          reply.code(401).send({ error: ['error_jwt_hash_not_found'] });
        } else if (!request.principal.perms.includes('*') && !request.principal.perms.includes('users:read')) {
          reply.code(403).send({ error: ['error_permission_denied'] });
        } else {
          done();
        }
      },
    },
    async () => me,
  );

  await app.listen({ port: Number(process.env.PORT || 0), host: '127.0.0.1' });
  const { port } = app.server.address();
  const token = issueToken(secret);
  process.stdout.write(`${JSON.stringify({ msg: 'listening', url: `http://127.0.0.1:${port}`, token })}\n`);
  process.once('SIGTERM', () =>
    app
      .close()
      .then(() => redis?.quit())
      .then(() => process.exit(0)),
  );
})();
