'use strict';
/**
 * What both peers share: an HS256 token they issue themselves at start (the bench cannot log in to them), and
 * the same JSON body as the service's GET /v1/users/me. Signed by hand with node:crypto so the node:http peer
 * owes nothing to a JWT library; @fastify/jwt verifies it like any HS256 token.
 */
const { createHmac, randomUUID } = require('node:crypto');

const base64url = (value) => Buffer.from(JSON.stringify(value)).toString('base64url');

function issueToken(secret, permissions = ['users:read']) {
  const now = Math.floor(Date.now() / 1000);
  const header = base64url({ alg: 'HS256', typ: 'JWT' });
  const payload = base64url({ sub: '1', cid: 1, perms: permissions, jti: randomUUID(), iat: now, exp: now + 3600 });
  const signature = createHmac('sha256', secret).update(`${header}.${payload}`).digest('base64url');
  return `${header}.${payload}.${signature}`;
}

const peerSettings = () => ({
  secret: process.env.PEER_SECRET || 'peer-secret-that-is-at-least-32-bytes-long',
  body: process.env.PEER_BODY || '{"ok":true}',
  // The service's GET limit times RATE_LIMIT_SCALE, as the service runs in the bench.
  limit: Number(process.env.PEER_LIMIT || 30),
});

module.exports = { issueToken, peerSettings };
