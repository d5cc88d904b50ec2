import { sql } from 'kysely';
import type { Db } from '../../tables.ts';

/** A verified delivery for a known store, as `store_webhook_events` keeps it. */
export interface DeliveryRow {
  id: string;
  platform: string;
  storeId: string;
  eventKey: string;
  topic: string;
  headers: Record<string, string | undefined>;
  rawBody: Buffer;
  path: string;
  receivedAt: Date;
}

/** The database refused a value (SQLSTATE class 22, data exception) or a constraint (23). */
const refusedData = (err: unknown): boolean => /^2[23]/.test(String((err as { code?: unknown }).code ?? ''));

/** The most deliveries one statement stores (a statement text per batch size, so few texts). */
const MAX_BATCH = 32;

interface Waiting {
  row: DeliveryRow;
  resolve: (inserted: boolean) => void;
  reject: (err: unknown) => void;
}

/**
 * Stores deliveries received in the same turn of the event loop with one statement: under load
 * many arrive together, and each spared statement is a round trip, its compilation and a commit.
 * `store` answers once its row is committed (true) or was there already (false, a duplicate), so
 * a delivery is acknowledged only once stored, as with a statement of its own. A statement whose
 * data the database refuses is retried row by row, so a row it refuses fails its own delivery,
 * not the ones received with it; any other failure (the database away) fails them all at once.
 */
export class DeliveryWriter {
  readonly #db: Db;
  #waiting: Waiting[] = [];
  #scheduled = false;

  constructor(db: Db) {
    this.#db = db;
  }

  store(row: DeliveryRow): Promise<boolean> {
    return new Promise((resolve, reject) => {
      this.#waiting.push({ row, resolve, reject });
      if (!this.#scheduled) {
        this.#scheduled = true;
        setImmediate(() => this.#flush());
      }
    });
  }

  /**
   * Stores a delivery for the store connected as `externalId` in one statement that also finds
   * the store (for a delivery whose signature did not need the store read first); answers whether
   * a row was stored (false: no such connected store, or a duplicate).
   */
  async storeForConnected(row: Omit<DeliveryRow, 'storeId'>, externalId: string): Promise<boolean> {
    const { rows } = await sql<{ id: string }>`
      insert into store_webhook_events (id, platform, store_id, event_key, topic, headers, raw_body, path, received_at, processed_at)
      select ${row.id}, ${row.platform}, s.id, ${row.eventKey}, ${row.topic}, ${JSON.stringify(row.headers)}::jsonb, ${row.rawBody}, ${row.path}, ${row.receivedAt}::timestamptz, null
      from stores s
      where s.platform = ${row.platform} and s.external_id = ${externalId} and s.status = 'connected'
      limit 1
      on conflict (platform, event_key) do nothing
      returning id`.execute(this.#db);
    return rows.length > 0;
  }

  #flush(): void {
    this.#scheduled = false;
    const waiting = this.#waiting;
    this.#waiting = [];
    for (let i = 0; i < waiting.length; i += MAX_BATCH) void this.#write(waiting.slice(i, i + MAX_BATCH));
  }

  async #write(batch: Waiting[]): Promise<void> {
    let inserted: Set<string>;
    try {
      inserted = await this.#insert(batch.map((w) => w.row));
    } catch (err) {
      if (batch.length > 1 && refusedData(err)) {
        await Promise.all(batch.map((w) => this.#write([w])));
        return;
      }
      for (const w of batch) w.reject(err);
      return;
    }
    for (const w of batch) w.resolve(inserted.has(w.row.id));
  }

  /** Inserts the rows, a duplicate (platform, event key) left out; answers the ids inserted. */
  async #insert(rows: DeliveryRow[]): Promise<Set<string>> {
    // Plain parameters, not the query builder's values (this runs for every delivery); the body
    // is its own binary parameter: the bytes as received, neither encoded nor wrapped in JSON.
    const values = rows.map(
      (r) =>
        sql`(${r.id}, ${r.platform}, ${r.storeId}, ${r.eventKey}, ${r.topic}, ${JSON.stringify(r.headers)}::jsonb, ${r.rawBody}, ${r.path}, ${r.receivedAt}::timestamptz, null)`,
    );
    const { rows: stored } = await sql<{ id: string }>`
      insert into store_webhook_events (id, platform, store_id, event_key, topic, headers, raw_body, path, received_at, processed_at)
      values ${sql.join(values)}
      on conflict (platform, event_key) do nothing
      returning id`.execute(this.#db);
    return new Set(stored.map((s) => s.id));
  }
}
