/**
 * Polls a condition every 20 ms until it holds or `ms` have passed; returns whether it held. For what a test waits
 * on and then asserts (`expect(await eventually(...)).toBe(true)`), so a timeout fails on the assertion's line.
 */
export async function eventually(done: () => boolean, ms = 10_000): Promise<boolean> {
  const until = performance.now() + ms;
  while (!done() && performance.now() < until) await new Promise((resolve) => setTimeout(resolve, 20));
  return done();
}
