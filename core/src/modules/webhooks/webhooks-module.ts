import type { CursorCodec } from '../../kernel/pagination.ts';
import type { AnyRoute } from '../../web/route.ts';
import type { DatabaseKind } from '../../infra/db/database.ts';
import type { SecretBox } from '../../infra/crypto.ts';
import type { Logger } from '../../infra/logger.ts';
import type { JobQueue } from '../../infra/queue/job-queue.ts';
import type { SafeFetchClient } from '../../infra/safe-fetch/safe-fetch.ts';
import type { Outbox } from '../events/outbox.ts';
import type { Db } from '../tables.ts';
import { WebhookDbLane } from './webhook-db-lane.ts';
import { WebhookDeliverer, type DeliveryJob } from './webhook-deliverer.ts';
import { WebhookDeliveriesService } from './webhook-deliveries-service.ts';
import { WebhookDispatcher, type SweepReport } from './webhook-dispatcher.ts';
import { WebhookEndpointsService } from './webhook-endpoints-service.ts';
import { resolveWebhooksOptions, type WebhooksOptions } from './webhooks-options.ts';
import { webhooksRoutes } from './webhooks-routes.ts';

/** Name of the queue that carries delivery attempts. */
export const WEBHOOKS_QUEUE = 'webhooks';

export interface WebhooksDeps {
  db: Db;
  queue: JobQueue;
  outbox: Outbox;
  box: SecretBox;
  safeFetch: SafeFetchClient;
  logger: Logger;
  cursors: CursorCodec;
  options?: Partial<WebhooksOptions>;
  clock?: () => Date;
  /** PostgreSQL's pool (the delivery path keeps connections of its own) or PGlite's one connection. */
  databaseKind: DatabaseKind;
}

/**
 * The webhooks capability: endpoints, fan-out of outbox events into deliveries, signed
 * at-least-once delivery with retries, the delivery log. Built once by the composition root.
 *
 * @example
 * const webhooks = new WebhooksModule({ db, queue, outbox, box, safeFetch, logger, cursors, databaseKind: database.kind
 * });
 * apiRoutes.push(...webhooks.routes());
 * maintenance.add('webhooks sweep', () => webhooks.sweep());
 */
export class WebhooksModule {
  readonly options: WebhooksOptions;
  readonly endpoints: WebhookEndpointsService;
  readonly deliveries: WebhookDeliveriesService;
  readonly dispatcher: WebhookDispatcher;
  readonly deliverer: WebhookDeliverer;
  readonly #logger: Logger;

  constructor(deps: WebhooksDeps) {
    const options = resolveWebhooksOptions(deps.options);
    const clock = deps.clock ?? (() => new Date());
    const logger = deps.logger.child({ module: 'webhooks' });
    this.options = options;
    this.#logger = logger;
    // Batch claims and outcome writes on up to three connections while busy, the fan-out on another.
    const pooled = deps.databaseKind === 'postgres';
    this.deliverer = new WebhookDeliverer({
      db: deps.db,
      lane: new WebhookDbLane(deps.db, { pooled, connections: 3 }),
      box: deps.box,
      safeFetch: deps.safeFetch,
      logger,
      options,
      clock,
    });
    const deliverer = this.deliverer;
    // One attempt of a batch per job; the retry schedule is in the delivery rows, so the queue never retries by itself.
    const jobs = Math.max(1, Math.ceil(options.concurrency / Math.max(1, options.batchSize)));
    deliverer.useQueue(
      deps.queue.define<DeliveryJob>(WEBHOOKS_QUEUE, {
        concurrency: jobs,
        attempts: 1,
        process: (job) => deliverer.process(job.data, { release: true }),
      }),
    );
    this.dispatcher = new WebhookDispatcher({
      db: deps.db,
      lane: new WebhookDbLane(deps.db, { pooled }),
      deliverer,
      logger,
      options,
      clock,
    });
    this.endpoints = new WebhookEndpointsService({
      db: deps.db,
      box: deps.box,
      safeFetch: deps.safeFetch,
      cursors: deps.cursors,
      logger,
      maxEndpoints: options.maxEndpoints,
      clock,
      onDeleted: async (pending) => {
        for (const d of pending) await deliverer.removeJob(d.id, d.attempts + 1);
      },
    });
    this.deliveries = new WebhookDeliveriesService({
      db: deps.db,
      endpoints: this.endpoints,
      deliverer,
      outbox: deps.outbox,
      cursors: deps.cursors,
      clock,
    });
    // Best effort and at once; the sweep is the guarantee.
    deps.outbox.onWritten(() => void this.dispatch());
  }

  /** Fans out events written since the last call. */
  async dispatch(): Promise<number> {
    try {
      return await this.dispatcher.dispatch();
    } catch (err) {
      this.#logger.warn('webhook fan-out failed; the sweeper will retry', { error: (err as Error).message });
      return 0;
    }
  }

  /** At shutdown, once the queue has stopped: waits for the outcomes of sends still running to be recorded. */
  close(): Promise<void> {
    return this.deliverer.drain();
  }

  /** The maintenance task (fan-out, lost jobs, failing endpoints, old history). */
  sweep(): Promise<SweepReport> {
    return this.dispatcher.sweep();
  }

  routes(): AnyRoute[] {
    return webhooksRoutes({ endpoints: this.endpoints, deliveries: this.deliveries, options: this.options });
  }
}
