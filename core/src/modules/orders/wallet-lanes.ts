import type { Transaction } from 'kysely';
import type { Db, Tables } from '../tables.ts';

/** One write of a placement: run on `db` alone (autocommit) or inside a batch's transaction. */
export type LaneWrite = (db: Db | Transaction<Tables>) => Promise<void>;

interface Waiting {
  write: LaneWrite;
  resolve: () => void;
  reject: (err: unknown) => void;
}

/**
 * Group commit for one wallet's debits. A debit locks the wallet row until its commit is on
 * disk, so one reseller's placements, however many run side by side, take turns of a statement
 * plus a WAL flush each. Here, per wallet and per process, one write runs at a time: a write
 * that comes while one runs waits, and all that waited run next together in ONE transaction
 * (one lock turn, one flush for all of them). Alone, a write runs at once as before.
 *
 * A write that aborts its statement (a wallet short, a key raced) aborts the batch's
 * transaction with it: then each write of the batch runs again alone, so each gets exactly the
 * outcome it would have had by itself.
 */
export class WalletLanes {
  readonly #db: Db;
  /** Wallets with a write under way, and the writes waiting for it. */
  readonly #lanes = new Map<string, Waiting[]>();
  readonly #maxBatch: number;

  constructor(db: Db, opts: { maxBatch?: number } = {}) {
    this.#db = db;
    this.#maxBatch = opts.maxBatch ?? 50;
  }

  run(wallet: string, write: LaneWrite): Promise<void> {
    const waiting = this.#lanes.get(wallet);
    if (waiting) return new Promise((resolve, reject) => waiting.push({ write, resolve, reject }));
    this.#lanes.set(wallet, []);
    const alone = write(this.#db);
    void alone.then(
      () => this.#next(wallet),
      () => this.#next(wallet),
    );
    return alone;
  }

  /** Runs what waited for the wallet meanwhile, batch after batch, until nothing waits. */
  async #next(wallet: string): Promise<void> {
    for (;;) {
      const waiting = this.#lanes.get(wallet)!;
      if (waiting.length === 0) {
        this.#lanes.delete(wallet);
        return;
      }
      const batch = waiting.splice(0, this.#maxBatch);
      if (batch.length > 1) {
        try {
          await this.#db.transaction().execute(async (trx) => {
            for (const w of batch) await w.write(trx);
          });
          for (const w of batch) w.resolve();
          continue;
        } catch {
          // One of them aborted (or the connection failed): each again on its own, below.
        }
      }
      for (const w of batch) {
        try {
          await w.write(this.#db);
          w.resolve();
        } catch (err) {
          w.reject(err);
        }
      }
    }
  }
}
