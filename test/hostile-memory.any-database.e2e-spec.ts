import { PasswordHasher, MAX_CONCURRENT_HASHES } from '../src/accounts/employee/password-hasher';
import { startTestApp, type TestApp } from './support/test-app';

/**
 * What kept memory after a hostile flood (RSS 137 → 228 MiB over 4,000 logins for made-up e-mails, and still
 * there afterwards): every such login runs a full argon2 check against a dummy hash (so timing does not tell
 * which e-mails exist), each allocating the memory cost in a libuv worker, and with all four workers busy the C
 * allocator kept those blocks. The structure that bounds it is the hasher's concurrency limit.
 */
jest.setTimeout(180_000);

describe('memory under a login flood for made-up e-mails', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t?.close());

  it(`never computes more than ${MAX_CONCURRENT_HASHES} hashes at once over 600 such logins, and leaves none queued`, async () => {
    const hasher = t.app.get(PasswordHasher);
    let peakActive = 0;
    let peakQueued = 0;
    const sampler = setInterval(() => {
      peakActive = Math.max(peakActive, hasher.limit.active);
      peakQueued = Math.max(peakQueued, hasher.limit.queued);
    }, 1);
    const statuses: Record<number, number> = {};
    try {
      for (let round = 0; round < 12; round++) {
        const answers = await Promise.all(
          Array.from({ length: 50 }, (_, i) =>
            t
              .http()
              .post('/v1/users/authenticateinit')
              .send({ email: `made-up-${round}-${i}@flood.example`, password: 'not the password' }),
          ),
        );
        for (const res of answers) statuses[res.status] = (statuses[res.status] ?? 0) + 1;
      }
    } finally {
      clearInterval(sampler);
    }
    expect(statuses).toEqual({ 401: 600 });
    expect(peakActive).toBeGreaterThan(0);
    expect(peakActive).toBeLessThanOrEqual(MAX_CONCURRENT_HASHES);
    // Waiting logins queue instead of each holding a hash's memory; the queue drains with the flood.
    expect(peakQueued).toBeGreaterThan(0);
    expect(hasher.limit.active).toBe(0);
    expect(hasher.limit.queued).toBe(0);
  });
});
