import type { Db } from '../tables.ts';

interface Task {
  run: (db: Db) => Promise<unknown>;
  resolve: (value: unknown) => void;
  reject: (err: unknown) => void;
}

/**
 * Runs the deliverer's hot statements (batch claims and outcome writes, the fan-out) on up to
 * `connections` pooled connections that it keeps while statements keep coming, each given back
 * after `lingerMs` without work. Under API load every other query of the process queues for
 * the shared pool; a claim or an outcome write waiting its turn there (hundreds of ms) would
 * hold a whole batch of deliveries back. A few connections are plenty: a statement covers a
 * whole batch.
 *
 * On PGlite (one connection for the whole process: `pooled: false`) there is no pool to wait
 * for, and keeping the connection would block every other query: statements then run on `db`
 * directly.
 */
export class WebhookDbLane {
  readonly #db: Db;
  readonly #connections: number;
  readonly #lingerMs: number;
  readonly #tasks: Task[] = [];
  readonly #pooled: boolean;
  /** Connections held now. */
  #holders = 0;
  /** Holders waiting for a statement (each wakes when given one). */
  readonly #idle: Array<() => void> = [];

  constructor(db: Db, options: { pooled: boolean; connections?: number; lingerMs?: number }) {
    this.#db = db;
    this.#pooled = options.pooled;
    this.#connections = Math.max(1, options.connections ?? 1);
    this.#lingerMs = options.lingerMs ?? 250;
  }

  async run<T>(work: (db: Db) => Promise<T>): Promise<T> {
    if (!this.#pooled) return work(this.#db);
    return new Promise<T>((resolve, reject) => {
      this.#tasks.push({ run: work, resolve: resolve as (value: unknown) => void, reject });
      const idle = this.#idle.shift();
      if (idle) idle();
      else if (this.#holders < this.#connections) this.#hold();
    });
  }

  /**
   * Takes a connection and runs queued statements on it, one at a time, until none came for
   * `lingerMs` or one failed.
   */
  #hold(): void {
    this.#holders++;
    this.#db
      .connection()
      .execute(async (conn) => {
        for (;;) {
          const task = this.#tasks.shift();
          if (task) {
            let failed = false;
            await task.run(conn).then(task.resolve, (err: unknown) => {
              failed = true;
              task.reject(err);
            });
            // A failure may mean the connection died (a database restart): kept, it would fail every
            // statement after it for as long as they keep coming. Given back, the pool drops a dead
            // one, and what is still queued runs on a fresh connection.
            if (failed) return;
          } else if (!(await this.#more())) return;
        }
      })
      .catch((err: unknown) => {
        // The connection could not be had or broke: whatever still waits fails now, like a failed query.
        if (this.#holders === 1) for (const t of this.#tasks.splice(0)) t.reject(err);
      })
      .finally(() => {
        this.#holders--;
        if (this.#tasks.length > 0 && this.#holders < this.#connections) this.#hold();
      });
  }

  /** Waits up to `lingerMs` to be given a statement; true when one came. */
  #more(): Promise<boolean> {
    if (this.#tasks.length > 0) return Promise.resolve(true);
    return new Promise<boolean>((resolve) => {
      const wake = (): void => {
        clearTimeout(timer);
        resolve(true);
      };
      const timer = setTimeout(() => {
        const i = this.#idle.indexOf(wake);
        if (i >= 0) this.#idle.splice(i, 1);
        resolve(false);
      }, this.#lingerMs);
      timer.unref();
      this.#idle.push(wake);
    });
  }
}
