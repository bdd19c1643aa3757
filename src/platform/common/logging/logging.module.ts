import { DynamicModule, Global, Module } from '@nestjs/common';
import type { AppLogger } from './logger';

export const APP_LOGGER = Symbol('APP_LOGGER');

@Global()
@Module({})
export class LoggingModule {
  static forRoot(logger: AppLogger): DynamicModule {
    return { module: LoggingModule, providers: [{ provide: APP_LOGGER, useValue: logger }], exports: [APP_LOGGER] };
  }
}
