import type { Connector } from '@print-api/connector-kit';
import { JobBatcher } from '../../infra/queue/job-batcher.ts';
import { PermanentJobError, RetryLaterError, type JobQueue, type Queue } from '../../infra/queue/job-queue.ts';
import { jobErrorFor } from './connect/connector-errors.ts';
import { platformSlug } from './connector-registry.ts';
import type { ListingSyncer } from './catalogue/listing-syncer.ts';
import type { EventIngester } from './inbound/event-ingester.ts';
import type { IngestRetrier } from './inbound/ingest-retrier.ts';
import type { StorePoller } from './inbound/store-poller.ts';
import { PUSH_ATTEMPTS, PUSH_BACKOFF_MS, type FulfilmentPusher } from './outbound/fulfilment-pusher.ts';
import type { StoresContext } from './stores-context.ts';
import type { StoreRow } from './stores-service.ts';

/**
 * An ingest job: stored webhooks received close together (`events`), one of them (`event`: a retry, the sweeper's), a
 * store to poll, or a skipped store order to retry (`retry`: POST /stores/{id}/ingests/retry).
 */
export type IngestJob =
  | { kind: 'events'; eventIds: string[] }
  | { kind: 'event'; eventId: string }
  | { kind: 'poll'; storeId: string }
  | { kind: 'retry'; storeId: string; ingestId: string };

/**
 * Ingest jobs run side by side per platform and process. Most of a thin notification's job is
 * waiting for its store's call budget, and the orders waiting together are what one merged
 * fetch carries (OrderFetches): too few jobs and the budget's calls go out half empty. The
 * database work is bounded by the pool, not by this.
 */
const INGEST_CONCURRENCY = 32;
/**
 * Webhooks stored close together are ingested by one job: how long the first waits for others, and the most a job
 * takes.
 */
const EVENTS_WINDOW_MS = 10;
const EVENTS_BATCH = 50;
/**
 * Stored webhooks older than this and still not processed are queued again by the sweep (a crash between storing and
 * queueing).
 */
const SWEEP_EVENTS_AFTER_MS = 60_000;
/** Stored webhooks a sweep queues at most (the next sweep takes more). */
const SWEEP_PAGE = 500;
/** Pages queued again at most when Redis is back (10,000 webhooks); the sweeps take any more. */
const REQUEUE_MAX_PAGES = 20;

/** Whether a job's failure is its last: refused for good, or its attempts spent (a wait for a call slot is neither). */
function isFinal(err: unknown, job: { attempt: number; maxAttempts: number }): boolean {
  return err instanceof PermanentJobError || (!(err instanceof RetryLaterError) && job.attempt >= job.maxAttempts);
}

/** The pipeline's parts whose work the queues' jobs run. */
export interface StoreJobHandlers {
  events: EventIngester;
  retrier: IngestRetrier;
  poller: StorePoller;
  fulfilments: FulfilmentPusher;
  listings: ListingSyncer;
}

/**
 * The stores' queues, per connector: `ingest-<platform>` (webhooks in batches, one webhook, a poll, a retry),
 * `fulfil-<platform>` (tracking) and `listings-<platform>` (catalogues, for connectors that list them), whose jobs
 * decide on the connectors' typed failures (connector-errors.ts); what the pipeline's parts add to them; and the
 * sweeps that queue again the stored webhooks a crash or a queue outage left unqueued.
 */
export class StoreQueues {
  readonly #ctx: Pick<StoresContext, 'db' | 'logger' | 'connectors'>;
  readonly #ingest = new Map<string, Queue<IngestJob>>();
  readonly #received = new Map<string, JobBatcher<string, IngestJob>>();
  readonly #fulfil = new Map<string, Queue<{ orderId: string }>>();
  readonly #listings = new Map<string, Queue<{ storeId: string }>>();
  #requeue: Promise<void> | undefined;
  #requeueAgain = false;

  constructor(ctx: Pick<StoresContext, 'db' | 'logger' | 'connectors'>) {
    this.#ctx = ctx;
  }

  /** Defines every connector's queues on `jobs`, their jobs run by `handlers`. */
  define(jobs: JobQueue, handlers: StoreJobHandlers): void {
    for (const connector of this.#ctx.connectors.all()) this.#defineQueues(jobs, connector, handlers);
  }

  /** A stored webhook, queued with those received close together. */
  stored(platform: string, eventId: string): void {
    this.#received.get(platform)!.add(eventId);
  }

  /** A skipped store order retried: one job per ingest and attempt (asked twice before it runs, it runs once). */
  queueRetry(store: StoreRow, ingestId: string, attempts: number): Promise<void> {
    return this.#ingest
      .get(store.platform)!
      .add({ kind: 'retry', storeId: store.id, ingestId }, { jobId: `retry-${ingestId}-${attempts}` });
  }

  /** The store's listings synced, once however often asked before it runs. */
  queueListingsSync(store: StoreRow, seq: number, delayMs: number | undefined): Promise<void> {
    return this.#listings
      .get(store.platform)!
      .add({ storeId: store.id }, { jobId: `listings-${store.id}-${seq}`, delayMs });
  }

  /** An order's tracking pushed to its store. */
  queuePush(platform: string, orderId: string): Promise<void> {
    return this.#fulfil.get(platform)!.add({ orderId }, { jobId: `fulfil-${orderId}` });
  }

  /** The platform's queues: ingestion (webhooks in batches, one webhook, a poll), fulfilment and listings. */
  #defineQueues(jobs: JobQueue, connector: Connector<any>, handlers: StoreJobHandlers): void {
    const { platform, displayName } = connector.manifest;
    const slug = platformSlug(platform);
    // The job's outcome follows the connector's typed failure: wait, give up or retry.
    const guarded = async (work: () => Promise<void>): Promise<void> => {
      try {
        await work();
      } catch (err) {
        throw jobErrorFor(displayName, err);
      }
    };
    // Guarded, and `onLastFailure` run before the job's last failure is thrown (it will not run again).
    const guardedToTheEnd = async (
      job: { attempt: number; maxAttempts: number },
      work: () => Promise<void>,
      onLastFailure: () => Promise<void>,
    ): Promise<void> => {
      try {
        await guarded(work);
      } catch (err) {
        if (isFinal(err, job)) await onLastFailure();
        throw err;
      }
    };
    const ingest: Queue<IngestJob> = jobs.define<IngestJob>(`ingest-${slug}`, {
      concurrency: INGEST_CONCURRENCY,
      attempts: 12,
      backoff: { type: 'exponential', delayMs: 2000 },
      process: (job): Promise<void> => {
        const data = job.data;
        if (data.kind === 'events')
          return handlers.events.processBatch(data.eventIds, (eventId, delayMs) =>
            ingest.add({ kind: 'event', eventId }, { jobId: `event-${eventId}`, delayMs }),
          );
        if (data.kind === 'retry') return guarded(() => handlers.retrier.retryQueued(data.storeId, data.ingestId));
        return guarded(() =>
          data.kind === 'event' ? handlers.events.process(data.eventId) : handlers.poller.poll(data.storeId),
        );
      },
    });
    this.#ingest.set(platform, ingest);
    this.#received.set(
      platform,
      new JobBatcher(ingest, {
        windowMs: EVENTS_WINDOW_MS,
        max: EVENTS_BATCH,
        toJob: (eventIds) => ({ data: { kind: 'events', eventIds }, options: { jobId: `events-${eventIds[0]}` } }),
        onError: (err, eventIds) =>
          this.#ctx.logger.warn('stored webhooks not queued; the sweeper will queue them', {
            platform,
            events: eventIds.length,
            error: err.message,
          }),
      }),
    );
    this.#fulfil.set(
      platform,
      jobs.define<{ orderId: string }>(`fulfil-${slug}`, {
        concurrency: 4,
        attempts: PUSH_ATTEMPTS,
        backoff: { type: 'exponential', delayMs: PUSH_BACKOFF_MS },
        // A push that will not be tried again is marked failed: no sweep queues it again.
        process: (job) =>
          guardedToTheEnd(
            job,
            () => handlers.fulfilments.push(job.data.orderId),
            () => handlers.fulfilments.giveUp(job.data.orderId),
          ),
      }),
    );
    if (connector.listListings) {
      this.#listings.set(
        platform,
        jobs.define<{ storeId: string }>(`listings-${slug}`, {
          concurrency: 2,
          attempts: 12,
          backoff: { type: 'exponential', delayMs: 5000 },
          // A job that will not run again lets go of the store: the next request queues one of its own.
          process: (job) =>
            guardedToTheEnd(
              job,
              () => handlers.listings.sync(job.data.storeId),
              () => handlers.listings.letGo(job.data.storeId),
            ),
        }),
      );
    }
  }

  /** The store polled (`suffix`: another job than the one queued already). */
  queuePoll(store: StoreRow, suffix?: string): Promise<void> {
    return this.#ingest
      .get(store.platform)!
      .add({ kind: 'poll', storeId: store.id }, { jobId: `poll-${store.id}${suffix ? `-${suffix}` : ''}` });
  }

  /** Re-queues stored webhooks that were never processed (a crash between store and queue), the oldest first. */
  async sweepEvents(olderThanMs = SWEEP_EVENTS_AFTER_MS): Promise<number> {
    return (await this.#queueUnprocessed(new Date(Date.now() - olderThanMs), undefined)).length;
  }

  /**
   * Redis is back after an outage (this process's queue connection is ready again): every
   * stored webhook not yet processed is queued now, however young, not by the sweep a minute
   * later. Those stored while Redis was away were never queued, and a Redis that restarted
   * empty lost the jobs of the others. Each process does this when its own connection returns,
   * so whatever it stored while it could not queue is covered; a webhook queued twice is
   * harmless (a job skips what is processed, and a store order is placed once by its
   * idempotency key). Past REQUEUE_MAX_PAGES pages, the sweeps take the rest.
   */
  async requeueUnprocessed(): Promise<number> {
    let queued = 0;
    let after: { at: Date; id: string } | undefined;
    for (let page = 0; page < REQUEUE_MAX_PAGES; page++) {
      const rows = await this.#queueUnprocessed(undefined, after);
      queued += rows.length;
      if (rows.length < SWEEP_PAGE) break;
      after = { at: rows.at(-1)!.received_at, id: rows.at(-1)!.id };
    }
    return queued;
  }

  /**
   * requeueUnprocessed for the queue's reconnection listener: logged, never thrown; a return while one runs runs it
   * once more after.
   */
  onQueueBack(): void {
    if (this.#requeue) {
      this.#requeueAgain = true;
      return;
    }
    this.#requeue = this.requeueUnprocessed()
      .then(
        (n) =>
          void (n > 0 && this.#ctx.logger.info('stored webhooks queued again after a queue outage', { events: n })),
        (err: Error) =>
          void this.#ctx.logger.warn(
            'stored webhooks not queued again after a queue outage; the sweeper will queue them',
            { error: err.message },
          ),
      )
      .finally(() => {
        this.#requeue = undefined;
        if (this.#requeueAgain) {
          this.#requeueAgain = false;
          this.onQueueBack();
        }
      });
  }

  /**
   * One page of stored webhooks not yet processed (received before `before`; after `after` in received order), queued
   * in batches.
   */
  async #queueUnprocessed(before: Date | undefined, after: { at: Date; id: string } | undefined) {
    let pending = this.#ctx.db
      .selectFrom('store_webhook_events')
      .select(['id', 'platform', 'received_at'])
      .where('processed_at', 'is', null);
    if (before) pending = pending.where('received_at', '<', before);
    if (after)
      pending = pending.where((eb) =>
        eb.or([eb('received_at', '>', after.at), eb.and([eb('received_at', '=', after.at), eb('id', '>', after.id)])]),
      );
    const rows = await pending.orderBy('received_at').orderBy('id').limit(SWEEP_PAGE).execute();
    for (const [platform, events] of Map.groupBy(rows, (r) => r.platform)) {
      for (let i = 0; i < events.length; i += EVENTS_BATCH) {
        const eventIds = events.slice(i, i + EVENTS_BATCH).map((e) => e.id);
        await this.#ingest.get(platform)?.add({ kind: 'events', eventIds }, { jobId: `events-${eventIds[0]}` });
      }
    }
    return rows;
  }

  /** Queues the stored webhooks still waiting for their batch (at shutdown). */
  async flush(): Promise<void> {
    await Promise.all([...this.#received.values()].map((b) => b.flush()));
  }
}
