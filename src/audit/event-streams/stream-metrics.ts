import { Injectable } from '@nestjs/common';
import { Counter, Histogram } from 'prom-client';
import { AppMetrics } from '../../platform/common/metrics/app-metrics';

export type DeliveryOutcome = 'delivered' | 'failed';

/** `event_stream_deliveries_total{outcome}` and `event_stream_lag_seconds`, on the application's registry. */
@Injectable()
export class StreamMetrics {
  private readonly deliveries: Counter<'outcome'>;
  private readonly lag: Histogram;

  constructor(metrics: AppMetrics) {
    this.deliveries = new Counter({
      name: 'event_stream_deliveries_total',
      help: 'Security-event stream delivery attempts by outcome (delivered: the receiver answered 2xx).',
      labelNames: ['outcome'] as const,
      registers: [metrics.registry],
    });
    this.lag = new Histogram({
      name: 'event_stream_lag_seconds',
      help: 'Time from an event being recorded to its delivery to a stream (2xx answer).',
      buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 3600, 86_400],
      registers: [metrics.registry],
    });
    for (const outcome of ['delivered', 'failed'] as const) this.deliveries.inc({ outcome }, 0);
  }

  attempt(outcome: DeliveryOutcome): void {
    this.deliveries.inc({ outcome });
  }

  delivered(lagSeconds: number): void {
    this.lag.observe(Math.max(0, lagSeconds));
  }
}
