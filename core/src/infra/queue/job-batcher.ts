import type { AddOptions, Queue } from './job-queue.ts';

export interface JobBatcherOptions<T, J> {
  /** How long the first item waits for others to join its job. */
  windowMs: number;
  /** A batch this big is queued at once. */
  max: number;
  /** The job that carries a batch, and its options (its id, usually taken from the first item). */
  toJob: (items: T[]) => { data: J; options?: AddOptions };
  /** A batch could not be queued (Redis away): the caller's sweeper finds its work in the database. */
  onError: (err: Error, items: T[]) => void;
}

/**
 * Gathers items added close together into one job: the first item opens a window, every item
 * added meanwhile joins it, and at the window's end (or at `max` items) the batch is queued as
 * one job. One job instead of one per item spares a queue round trip to add it and two to run
 * it, per item. For work whose truth is in the database: `add` returns before the job is
 * queued, so a crash inside the window loses the job, never the work, which the owner's
 * sweeper finds again. `flush` queues what waits (at shutdown).
 */
export class JobBatcher<T, J> {
  readonly #queue: Queue<J>;
  readonly #options: JobBatcherOptions<T, J>;
  #pending: T[] = [];
  #timer: NodeJS.Timeout | undefined;
  readonly #adding = new Set<Promise<void>>();

  constructor(queue: Queue<J>, options: JobBatcherOptions<T, J>) {
    this.#queue = queue;
    this.#options = options;
  }

  add(item: T): void {
    this.#pending.push(item);
    if (this.#pending.length >= this.#options.max) this.#queueBatch();
    else this.#timer ??= setTimeout(() => this.#queueBatch(), this.#options.windowMs);
  }

  /** Queues the waiting batch now and waits until every batch handed to the queue is in it. */
  async flush(): Promise<void> {
    this.#queueBatch();
    await Promise.all(this.#adding);
  }

  #queueBatch(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    const items = this.#pending;
    if (items.length === 0) return;
    this.#pending = [];
    const { data, options } = this.#options.toJob(items);
    const adding = this.#queue.add(data, options).then(
      () => undefined,
      (err: Error) => this.#options.onError(err, items),
    );
    this.#adding.add(adding);
    void adding.finally(() => this.#adding.delete(adding));
  }
}
