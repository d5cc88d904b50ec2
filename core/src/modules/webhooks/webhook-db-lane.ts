import { sql } from 'kysely';
import type { Db } from '../tables.ts';

interface Task {
  run: (db: Db) => Promise<unknown>;
  resolve: (value: unknown) => void;
  reject: (err: unknown) => void;
}

/**
 * Runs the deliverer's hot statements (batch claims and outcome writes) on one pooled
 * connection that it keeps while they keep coming, and gives back after `lingerMs` without
 * work. Under API load every other query of the process queues for the shared pool; a claim
 * or an outcome write waiting its turn there (hundreds of ms) would hold a whole batch of
 * deliveries back. One connection is plenty: a statement covers a whole batch.
 *
 * On PGlite (one connection for the whole process) there is no pool to wait for, and keeping
 * the connection would block every other query: statements then run on `db` directly.
 */
export class WebhookDbLane {
  readonly #db: Db;
  readonly #lingerMs: number;
  readonly #tasks: Task[] = [];
  #pooled: Promise<boolean> | undefined;
  #holding = false;
  /** Wakes a lingering holder when a statement arrives. */
  #wake: (() => void) | undefined;

  constructor(db: Db, lingerMs = 250) {
    this.#db = db;
    this.#lingerMs = lingerMs;
  }

  async run<T>(work: (db: Db) => Promise<T>): Promise<T> {
    if (!(await this.#isPooled())) return work(this.#db);
    return new Promise<T>((resolve, reject) => {
      this.#tasks.push({ run: work, resolve: resolve as (value: unknown) => void, reject });
      this.#wake?.();
      this.#hold();
    });
  }

  #isPooled(): Promise<boolean> {
    this.#pooled ??= sql<{ version: string }>`select version() as version`
      .execute(this.#db)
      .then(({ rows }) => !String(rows[0]?.version ?? '').includes('PGlite'))
      .catch(() => {
        this.#pooled = undefined; // ask again next time
        return false;
      });
    return this.#pooled;
  }

  /** Takes a connection (once) and runs queued statements on it until none came for `lingerMs`. */
  #hold(): void {
    if (this.#holding) return;
    this.#holding = true;
    this.#db
      .connection()
      .execute(async (conn) => {
        for (;;) {
          while (this.#tasks.length > 0) {
            // Statements on one connection run one after the other anyway; each settles its own caller.
            const tasks = this.#tasks.splice(0);
            await Promise.all(tasks.map((t) => t.run(conn).then(t.resolve, t.reject)));
          }
          if (!(await this.#more())) return;
        }
      })
      .catch((err: unknown) => {
        // The connection could not be had or broke: whatever still waits fails now, like a failed query.
        for (const t of this.#tasks.splice(0)) t.reject(err);
      })
      .finally(() => {
        this.#holding = false;
        if (this.#tasks.length > 0) this.#hold();
      });
  }

  /** Waits up to `lingerMs` for another statement; true when one came. */
  #more(): Promise<boolean> {
    if (this.#tasks.length > 0) return Promise.resolve(true);
    return new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => {
        this.#wake = undefined;
        resolve(false);
      }, this.#lingerMs);
      timer.unref();
      this.#wake = () => {
        clearTimeout(timer);
        this.#wake = undefined;
        resolve(true);
      };
    });
  }
}
