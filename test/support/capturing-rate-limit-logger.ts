import type { RateLimitLogger } from '../../src/platform/counters/rate-limit-storage';

/** A rate-limit storage logger that keeps what it is told, for specs that assert on the events. */
export class CapturingLogger implements RateLimitLogger {
  readonly lines: { level: 'warn' | 'info'; obj: Record<string, unknown>; msg?: string }[] = [];
  warn(obj: object, msg?: string): void {
    this.lines.push({ level: 'warn', obj: obj as Record<string, unknown>, msg });
  }
  info(obj: object, msg?: string): void {
    this.lines.push({ level: 'info', obj: obj as Record<string, unknown>, msg });
  }
  events(): unknown[] {
    return this.lines.map((line) => line.obj.event);
  }
}

export const silent: RateLimitLogger = { warn: () => undefined, info: () => undefined };
