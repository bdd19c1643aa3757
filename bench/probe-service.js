'use strict';
/**
 * Bench only: the built service (dist/) with pieces of its request path turned off, so that bench/breakdown.js
 * can measure what each piece costs as the difference to the whole service in the same run. PROBE_OFF lists the
 * pieces, comma-separated:
 *   request-id   the request id (a random UUID per request; the header write stays)
 *   headers      the three X-Rate-Limit-* headers the limiter writes
 *   metrics      the HTTP request metric and the rate-limit decision metric
 *   limiter      the rate-limit guard (count and headers)
 *   credential   the credential verdict (every ask answered with the first valid verdict, as a constant)
 *   access       the auth guard's rule check and last-use note (the principal is set from the verdict)
 *   input        the input-sanity guard (NUL, surrogates, depth, undeclared query parameters)
 * Everything is replaced on the built modules' exports and prototypes before the service starts; nothing of it
 * is in the service itself. With `headers` or `limiter` off, the answer hook's fill-in (the headers of a request no
 * guard counted, read from the counter) is off too: otherwise it would do that work on every request instead and
 * the process without the piece would measure slower than the whole service.
 */
const off = new Set((process.env.PROBE_OFF ?? '').split(',').filter(Boolean));
const dist = (path) => require(`../dist/src/${path}`);
const yes = () => true;

if (off.has('request-id')) {
  const crypto = require('node:crypto');
  const fixed = crypto.randomUUID();
  crypto.randomUUID = () => fixed;
}
if (off.has('headers')) dist('rate-limiting/limiter/rate-limit-response-headers').setRateLimitHeaders = () => undefined;
if (off.has('headers') || off.has('limiter')) {
  dist('rate-limiting/limiter/rate-limit-headers').RateLimitHeaders.prototype.fillIn = () => undefined;
}
if (off.has('metrics')) {
  const { AppMetrics } = dist('platform/common/metrics/app-metrics');
  AppMetrics.prototype.httpRequest = () => undefined;
  AppMetrics.prototype.rateLimitDecision = () => undefined;
}
if (off.has('limiter')) dist('rate-limiting/limiter/rate-limit.guard').RateLimitGuard.prototype.canActivate = yes;
if (off.has('input')) dist('platform/common/http/input-sanity').InputSanityGuard.prototype.canActivate = yes;
if (off.has('credential')) {
  const { CredentialService } = dist('identity/auth/credentials/credential.service');
  const peek = CredentialService.prototype.peek;
  let valid;
  CredentialService.prototype.peek = function (request) {
    if (valid !== undefined) return valid;
    const verdict = peek.call(this, request);
    if (verdict?.status === 'valid') valid = verdict;
    return verdict;
  };
}
if (off.has('access')) {
  const { AuthGuard } = dist('identity/auth/auth.guard');
  const canActivate = AuthGuard.prototype.canActivate;
  AuthGuard.prototype.canActivate = function (context) {
    const request = context.getArgByIndex(0);
    const verdict = this.credentials.peek(request);
    if (verdict?.status !== 'valid') return canActivate.call(this, context);
    request.principal = verdict.principal;
    return true;
  };
}
require('../dist/src/main.js');
