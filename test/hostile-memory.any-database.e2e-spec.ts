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
    // The service's own cost (not the tests' cheap one): a hash then lasts longer than a request takes to
    // arrive, as in production, so a flood's logins do meet the limit (at 1 MiB they barely overlapped).
    t = await startTestApp({ env: { ARGON2_MEMORY_KIB: '19456', ARGON2_TIME_COST: '2' } });
  });
  afterAll(() => t?.close());

  it(`never computes more than ${MAX_CONCURRENT_HASHES} hashes at once over 200 such logins, and leaves none queued`, async () => {
    const hasher = t.app.get(PasswordHasher);
    let peakActive = 0;
    let peakQueued = 0;
    // Read at every entry, when a hash starts or queues (a 1 ms sampler missed queues that came and went
    // between its ticks): run() takes its slot or its place in the queue before it returns.
    const run = hasher.limit.run.bind(hasher.limit);
    jest.spyOn(hasher.limit, 'run').mockImplementation((task) => {
      const started = run(task);
      peakActive = Math.max(peakActive, hasher.limit.active);
      peakQueued = Math.max(peakQueued, hasher.limit.queued);
      return started;
    });
    const statuses: Record<number, number> = {};
    for (let round = 0; round < 4; round++) {
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
    expect(statuses).toEqual({ 401: 200 });
    expect(peakActive).toBeGreaterThan(0);
    expect(peakActive).toBeLessThanOrEqual(MAX_CONCURRENT_HASHES);
    // Waiting logins queue instead of each holding a hash's memory; the queue drains with the flood.
    expect(peakQueued).toBeGreaterThan(0);
    expect(hasher.limit.active).toBe(0);
    expect(hasher.limit.queued).toBe(0);
  });
});
