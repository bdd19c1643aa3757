import { LoggerService } from '@nestjs/common';
import type { AppLogger } from './logger';

/**
 * Nest's start-up chatter: one line per module and per route (~70 lines), which buried the demo password of a
 * first start. Kept at debug (`LOG_LEVEL=debug` shows them); our own "listening" line says the start is done.
 */
const START_UP_CONTEXTS = new Set([
  'NestFactory',
  'InstanceLoader',
  'RoutesResolver',
  'RouterExplorer',
  'NestApplication',
]);

/** Routes Nest's own messages (bootstrap, module errors) into the structured log. */
export class NestLogger implements LoggerService {
  constructor(private readonly logger: AppLogger) {}

  log(message: unknown, context?: string): void {
    this.write(context !== undefined && START_UP_CONTEXTS.has(context) ? 'debug' : 'info', message, context);
  }

  error(message: unknown, stackOrContext?: string, context?: string): void {
    // A failed start whose reason is one plain sentence (a second process on the embedded database's folder):
    // main writes that sentence to stderr, and a JSON stack trace before it only hides it.
    if (message instanceof Error && (message as { operatorMessage?: boolean }).operatorMessage === true) return;
    if (message instanceof Error) {
      this.logger.error({ err: message, context: stackOrContext }, message.message);
      return;
    }
    this.write('error', message, context ?? stackOrContext);
  }

  warn(message: unknown, context?: string): void {
    this.write('warn', message, context);
  }

  debug(message: unknown, context?: string): void {
    this.write('debug', message, context);
  }

  verbose(message: unknown, context?: string): void {
    this.write('trace', message, context);
  }

  fatal(message: unknown, context?: string): void {
    this.write('fatal', message, context);
  }

  private write(level: 'info' | 'error' | 'warn' | 'debug' | 'trace' | 'fatal', message: unknown, context?: string) {
    if (typeof message === 'object' && message !== null) this.logger[level]({ context, ...message });
    else this.logger[level]({ context }, String(message));
  }
}
