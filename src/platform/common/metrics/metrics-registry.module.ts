import { Global, Module } from '@nestjs/common';
import { AppMetrics } from './app-metrics';

/**
 * The application's one {@link AppMetrics}, injectable everywhere (the operator CLI included, whose services
 * count too): components count into it and register the figures they keep; MetricsModule serves it.
 */
@Global()
@Module({ providers: [AppMetrics], exports: [AppMetrics] })
export class MetricsRegistryModule {}
