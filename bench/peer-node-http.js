'use strict';
/**
 * Peer row: GET /v1/users/me written by hand on node:http, doing the service's job for that route: refuse a
 * credential in the `__jwtAuthorization` query parameter, verify the raw HS256 JWT of `Authorization` with
 * node:crypto (verifications cached per token, as the service caches them), check it against an in-memory
 * revocation set, rate-limit on a leaky bucket keyed by ip|method|group|token hash with the three
 * X-Rate-Limit-* headers (and Retry-After on a 429), check the permission, answer the same JSON.
 * Env: PEER_SECRET, PEER_BODY, PEER_LIMIT, PORT. Logs `{"msg":"listening","url","token"}`.
 */
const { createHash, createHmac, timingSafeEqual } = require('node:crypto');
const { createServer } = require('node:http');
const { issueToken, peerSettings } = require('./lib/peer-token');

const { secret, body, limit } = peerSettings();
const me = JSON.parse(body);
const PERIOD_MS = 3000;
const interval = PERIOD_MS / limit;
const revoked = new Set();
const verified = new Map(); // token → { hash, payload } | null
const buckets = new Map(); // key → TAT (ms)

function verify(token) {
  const parts = token.split('.');
  if (parts.length !== 3) return null;
  const expected = createHmac('sha256', secret).update(`${parts[0]}.${parts[1]}`).digest();
  const given = Buffer.from(parts[2], 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
  try {
    const payload = JSON.parse(Buffer.from(parts[1], 'base64url').toString('utf8'));
    return { hash: createHash('sha256').update(token).digest('hex').slice(0, 16), payload };
  } catch {
    return null;
  }
}

/** The credential as memory knows it: valid (not expired, not revoked) or not. */
function judge(token) {
  if (!token) return null;
  let known = verified.get(token);
  if (known === undefined) {
    if (verified.size > 100_000) verified.clear();
    known = verify(token);
    verified.set(token, known);
  }
  if (known === null || known.payload.exp * 1000 <= Date.now() || revoked.has(known.payload.jti)) return null;
  return known;
}

function send(res, status, json) {
  res.statusCode = status;
  res.setHeader('content-type', 'application/json; charset=utf-8');
  res.end(json);
}

const server = createServer((req, res) => {
  const [path, query = ''] = req.url.split('?', 2);
  if (path !== '/v1/users/me' || req.method !== 'GET') return send(res, 404, '{"error":["error_not_found"]}');
  const credential = judge(req.headers.authorization);
  const identifier = `${req.socket.remoteAddress}|GET|users|${credential ? credential.hash : '-'}`;
  // The leaky bucket (GCRA), as the service computes it.
  const now = Date.now();
  const tat = buckets.get(identifier) ?? now;
  const level = Math.max(0, tat - now);
  const after = level + interval;
  const admitted = after <= PERIOD_MS;
  if (admitted) {
    if (buckets.size > 500_000) buckets.clear();
    buckets.set(identifier, now + after);
  }
  res.setHeader('x-rate-limit-limit', limit);
  res.setHeader('x-rate-limit-remaining', Math.floor((PERIOD_MS - (admitted ? after : level)) / interval));
  res.setHeader('x-rate-limit-identifier', identifier);
  if (!admitted) {
    res.setHeader('retry-after', Math.max(1, Math.ceil((level + interval - PERIOD_MS) / 1000)));
    return send(res, 429, '["error_rate_limit_exceed"]');
  }
  if (query.includes('__jwtAuthorization=')) return send(res, 400, '{"error":["error_validation"]}');
  if (!credential) return send(res, 401, '{"error":["error_jwt_hash_not_found"]}');
  const perms = credential.payload.perms;
  if (!perms.includes('*') && !perms.includes('users:read'))
    return send(res, 403, '{"error":["error_permission_denied"]}');
  send(res, 200, JSON.stringify(me));
});

server.keepAliveTimeout = 65_000;
server.listen(Number(process.env.PORT || 0), '127.0.0.1', () => {
  const { port } = server.address();
  const token = issueToken(secret);
  process.stdout.write(`${JSON.stringify({ msg: 'listening', url: `http://127.0.0.1:${port}`, token })}\n`);
});
process.once('SIGTERM', () => server.close(() => process.exit(0)));
