import type { NextFunction, Request, Response } from 'express';
import client from 'prom-client';
import type { JobQueue } from './queue/job-queue.ts';

/**
 * Prometheus metrics: HTTP requests by route and status with latency, queue depth per queue,
 * and the process defaults. Domain modules add their own counters through `registry`.
 */
export class Metrics {
  readonly registry = new client.Registry();
  readonly #httpDuration: client.Histogram<'method' | 'route' | 'status'>;

  constructor(deps: { queue: JobQueue }) {
    client.collectDefaultMetrics({ register: this.registry });
    this.#httpDuration = new client.Histogram({
      name: 'http_request_duration_seconds',
      help: 'HTTP requests by method, route and status',
      labelNames: ['method', 'route', 'status'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [this.registry],
    });
    const queue = deps.queue;
    new client.Gauge({
      name: 'queue_jobs',
      help: 'Jobs per queue and state (waiting, active, delayed, failed)',
      labelNames: ['queue', 'state'],
      registers: [this.registry],
      async collect() {
        // Side by side: while Redis is away each count waits out its command timeout, once for all queues.
        const all = await Promise.all(
          queue.queues().map(async (q) => ({ name: q.name, counts: await q.counts().catch(() => undefined) })),
        );
        this.reset();
        for (const { name, counts } of all) {
          if (!counts) continue;
          for (const state of ['waiting', 'active', 'delayed', 'failed'] as const)
            this.set({ queue: name, state }, counts[state]);
        }
      },
    });
  }

  counter<L extends string>(name: string, help: string, labelNames: L[]): client.Counter<L> {
    return new client.Counter({ name, help, labelNames, registers: [this.registry] });
  }

  /** A gauge whose value is read when Prometheus scrapes (`collect`). */
  gauge<L extends string>(
    name: string,
    help: string,
    labelNames: L[],
    collect?: (this: client.Gauge<L>) => void | Promise<void>,
  ): client.Gauge<L> {
    return new client.Gauge({ name, help, labelNames, registers: [this.registry], ...(collect ? { collect } : {}) });
  }

  histogram<L extends string>(name: string, help: string, labelNames: L[], buckets: number[]): client.Histogram<L> {
    return new client.Histogram({ name, help, labelNames, buckets, registers: [this.registry] });
  }

  /** Times every request; the route label is the declared path, never the raw URL (bounded cardinality). */
  observe() {
    return (req: Request, res: Response, next: NextFunction): void => {
      const end = this.#httpDuration.startTimer();
      res.on('finish', () => {
        const route = req.routePath ?? (req.route?.path ? `${req.baseUrl}${String(req.route.path)}` : 'unmatched');
        end({ method: req.method, route, status: String(res.statusCode) });
      });
      next();
    };
  }
}
