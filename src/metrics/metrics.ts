import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { DataSource } from 'typeorm';
import { poolOf } from '../database/pool';

/** What the worker records for one attempt: the delivery's state after it, or `lost`. */
export type WebhookDeliveryOutcome = 'succeeded' | 'failed' | 'dead' | 'pending' | 'lost';

/**
 * The process's Prometheus metrics (API.md §12), in a registry of its own (one per
 * application, so several apps in one process, as in tests, do not collide): Node's
 * default process metrics, HTTP requests by route pattern and status, webhook delivery
 * outcomes and the database pool.
 */
@Injectable()
export class Metrics {
  readonly registry = new Registry();

  private readonly httpRequests = new Counter({
    name: 'http_requests_total',
    help: 'HTTP requests answered, by method, route pattern and status',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [this.registry],
  });

  private readonly httpDuration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'Time to answer HTTP requests, by method, route pattern and status',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [this.registry],
  });

  private readonly webhookDeliveries = new Counter({
    name: 'webhook_deliveries_total',
    help: 'Webhook delivery attempts by outcome: the delivery state recorded after the attempt (succeeded, failed, dead), or lost when the lease ran out before it was recorded',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });

  constructor(@InjectDataSource() dataSource: DataSource) {
    collectDefaultMetrics({ register: this.registry });
    new Gauge({
      name: 'db_pool_connections',
      help: 'Database pool connections by state (total, idle, waiting clients)',
      labelNames: ['state'] as const,
      registers: [this.registry],
      collect() {
        const pool = poolOf(dataSource);
        if (!pool) return;
        this.set({ state: 'total' }, pool.totalCount);
        this.set({ state: 'idle' }, pool.idleCount);
        this.set({ state: 'waiting' }, pool.waitingCount);
      },
    });
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  /** The exposition text for a scrape. */
  scrape(): Promise<string> {
    return this.registry.metrics();
  }

  recordHttp(method: string, route: string, status: number, seconds: number): void {
    const labels = { method, route, status: String(status) };
    this.httpRequests.inc(labels);
    this.httpDuration.observe(labels, seconds);
  }

  recordWebhookDelivery(outcome: WebhookDeliveryOutcome): void {
    this.webhookDeliveries.inc({ outcome });
  }
}
