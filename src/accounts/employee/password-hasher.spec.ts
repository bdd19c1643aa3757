import { ConcurrencyLimit } from './password-hasher';

describe('ConcurrencyLimit (bounds the argon2 hashes computed at once)', () => {
  it('never runs more than its limit at once, and runs every task', async () => {
    const limit = new ConcurrencyLimit(2);
    let running = 0;
    let peak = 0;
    const task = async (value: number) => {
      running++;
      peak = Math.max(peak, running);
      await new Promise((resolve) => setTimeout(resolve, 2));
      running--;
      return value;
    };
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => limit.run(() => task(i))));
    expect(results).toEqual(Array.from({ length: 20 }, (_, i) => i));
    expect(peak).toBe(2);
    expect(limit.active).toBe(0);
    expect(limit.queued).toBe(0);
  });

  it('frees the slot when a task fails', async () => {
    const limit = new ConcurrencyLimit(1);
    await expect(limit.run(() => Promise.reject(new Error('argon2 failed')))).rejects.toThrow('argon2 failed');
    await expect(limit.run(() => Promise.resolve('next'))).resolves.toBe('next');
    expect(limit.active).toBe(0);
  });
});
