import type { Logger } from '../infra/logger.ts';

/**
 * Periodic sweeps that make the database the source of truth: work lost between a commit and
 * a queue (a crash, a Redis blip) is found again and redone. Every task is idempotent, so
 * several worker processes may sweep at once.
 */
export class Maintenance {
  readonly #tasks: Array<{ name: string; run: () => Promise<unknown> }> = [];
  readonly #logger: Logger;
  readonly #intervalMs: number;
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<void> | undefined;

  constructor(deps: { logger: Logger; intervalMs: number }) {
    this.#logger = deps.logger;
    this.#intervalMs = deps.intervalMs;
  }

  add(name: string, run: () => Promise<unknown>): void {
    this.#tasks.push({ name, run });
  }

  start(): void {
    if (this.#timer) return;
    void this.runOnce();
    this.#timer = setInterval(() => void this.runOnce(), this.#intervalMs);
    this.#timer.unref();
  }

  /** Runs every task once (skipped while a previous round still runs). */
  async runOnce(): Promise<void> {
    if (this.#running) return this.#running;
    this.#running = (async () => {
      for (const task of this.#tasks) {
        try {
          await task.run();
        } catch (err) {
          this.#logger.warn('maintenance task failed', { task: task.name, error: (err as Error).message });
        }
      }
    })().finally(() => (this.#running = undefined));
    return this.#running;
  }

  async stop(): Promise<void> {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = undefined;
    await this.#running;
  }
}
