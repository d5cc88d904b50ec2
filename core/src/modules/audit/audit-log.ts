import { sql, type Selectable, type Transaction } from 'kysely';
import { listEnvelope, resolvePage, type CursorCodec, type ListEnvelope } from '../../kernel/pagination.ts';
import { sha256Hex } from '../../infra/crypto.ts';
import { newId } from '../../infra/ids.ts';
import type { Db, Tables } from '../tables.ts';
import { GENESIS_HASH, type Actor, type AuditEventsTable } from './audit-tables.ts';

type Trx = Transaction<Tables>;

/** Who acts and from where: what every record of one request shares. */
export interface AuditContext {
  actor: Actor;
  ip?: string | null | undefined;
  userAgent?: string | null | undefined;
  requestId?: string | null | undefined;
}

/** One thing that happened, to record. */
export interface AuditEntry {
  action: string;
  target: { type: string; id: string };
  changes?: Record<string, unknown> | undefined;
}

export interface AuditEvent {
  id: string;
  seq: number;
  at: string;
  actor: Actor;
  action: string;
  target: { type: string; id: string };
  ip: string | null;
  userAgent: string | null;
  requestId: string | null;
  changes: Record<string, unknown> | null;
  hash: string;
}

/**
 * Written inside the transaction of the change it records, with the change's result: the change and its record
 * commit together or not at all.
 */
export type AuditHook<T> = (trx: Trx, result: T) => Promise<void>;

/** Runs `work` alone, or, with a hook, in one transaction with the record the hook writes of its result. */
export async function withAudit<T>(db: Db, audit: AuditHook<T> | undefined, work: (db: Db | Trx) => Promise<T>) {
  if (!audit) return work(db);
  return db.transaction().execute(async (trx) => {
    const result = await work(trx);
    await audit(trx, result);
    return result;
  });
}

export interface AuditFilters {
  action?: string | undefined;
  actorId?: string | undefined;
  targetId?: string | undefined;
  since?: Date | undefined;
  until?: Date | undefined;
  limit?: number | undefined;
  cursor?: string | undefined;
}

/**
 * The tamper-evident audit trail. Appends take the chain head row FOR UPDATE in the caller's
 * transaction, so appends from every process and connection are ordered one after the other and
 * each links to the one before; a rolled-back change takes its record (and its place) with it.
 */
export class AuditLog {
  readonly #db: Db;
  readonly #clock: () => Date;

  constructor(deps: { db: Db; clock?: () => Date }) {
    this.#db = deps.db;
    this.#clock = deps.clock ?? (() => new Date());
  }

  /** Appends a record in `trx` (the transaction of the change it records). */
  async append(trx: Trx, ctx: AuditContext, entry: AuditEntry): Promise<AuditEvent> {
    const head = await trx
      .selectFrom('audit_chain')
      .select(['seq', 'hash'])
      .where('id', '=', 1)
      .forUpdate()
      .executeTakeFirstOrThrow();
    const now = this.#clock();
    const seq = Number(head.seq) + 1;
    const event: Omit<AuditEvent, 'hash'> = {
      id: newId('aud', now.getTime()),
      seq,
      at: now.toISOString(),
      actor: cleanActor(ctx.actor),
      action: entry.action,
      target: entry.target,
      ip: ctx.ip ?? null,
      userAgent: ctx.userAgent?.slice(0, 300) ?? null,
      requestId: ctx.requestId ?? null,
      changes: entry.changes ? (JSON.parse(JSON.stringify(entry.changes)) as Record<string, unknown>) : null,
    };
    const hash = chainHash(head.hash, event);
    await trx
      .insertInto('audit_events')
      .values({
        id: event.id,
        seq,
        at: now,
        actor: JSON.stringify(event.actor),
        action: event.action,
        target_type: event.target.type,
        target_id: event.target.id,
        ip: event.ip,
        user_agent: event.userAgent,
        request_id: event.requestId,
        changes: JSON.stringify(event.changes),
        prev_hash: head.hash,
        hash,
      })
      .execute();
    await trx.updateTable('audit_chain').set({ seq, hash }).where('id', '=', 1).execute();
    return { ...event, hash };
  }

  /** Records something that changes nothing else (a refused sign-in), in a transaction of its own. */
  async record(ctx: AuditContext, entry: AuditEntry): Promise<AuditEvent> {
    return this.#db.transaction().execute((trx) => this.append(trx, ctx, entry));
  }

  /** A hook that records `describe(result)` in the transaction of the change. */
  hook<T>(ctx: AuditContext, describe: (result: T) => AuditEntry): AuditHook<T> {
    return async (trx, result) => {
      await this.append(trx, ctx, describe(result));
    };
  }

  /** Newest first, filtered; keyset pages on `seq`. */
  async list(cursors: CursorCodec, filters: AuditFilters): Promise<ListEnvelope<AuditEvent>> {
    const page = resolvePage(cursors, 'audit-events', filters);
    let q = this.#db.selectFrom('audit_events').selectAll();
    if (filters.action) q = q.where('action', '=', filters.action);
    if (filters.actorId) q = q.where(sql<string>`actor->>'id'`, '=', filters.actorId);
    if (filters.targetId) q = q.where('target_id', '=', filters.targetId);
    if (filters.since) q = q.where('at', '>=', filters.since);
    if (filters.until) q = q.where('at', '<', filters.until);
    if (page.after) q = q.where('seq', '<', String(page.after[0]));
    const rows = await q
      .orderBy('seq', 'desc')
      .limit(page.limit + 1)
      .execute();
    return listEnvelope(cursors, 'audit-events', page, rows, (r) => [Number(r.seq)], toEvent);
  }

  /**
   * Walks the chain from its anchor (the genesis, or the last record the retention job dropped) to its head: every
   * record's hash must be that of its content and the hash before it, and the last must be the head's. The first
   * record that fails is named.
   */
  async verify(): Promise<{ ok: boolean; checked: number; firstBrokenId: string | null }> {
    const head = await this.#db.selectFrom('audit_chain').selectAll().where('id', '=', 1).executeTakeFirstOrThrow();
    let prevHash = head.anchor_hash;
    let prevSeq = Number(head.anchor_seq);
    let checked = 0;
    let lastId: string | null = null;
    const BATCH = 500;
    for (;;) {
      const rows = await this.#db
        .selectFrom('audit_events')
        .selectAll()
        .where('seq', '>', String(prevSeq))
        .orderBy('seq', 'asc')
        .limit(BATCH)
        .execute();
      for (const row of rows) {
        checked++;
        const event = toEvent(row);
        if (event.seq !== prevSeq + 1 || row.prev_hash !== prevHash || chainHash(prevHash, event) !== row.hash) {
          return { ok: false, checked, firstBrokenId: row.id };
        }
        prevHash = row.hash;
        prevSeq = event.seq;
        lastId = row.id;
      }
      if (rows.length < BATCH) break;
    }
    // Rows removed from the end (or the head moved without a row): the head no longer matches the last row.
    if (prevSeq !== Number(head.seq) || prevHash !== head.hash) return { ok: false, checked, firstBrokenId: lastId };
    return { ok: true, checked, firstBrokenId: null };
  }

  /**
   * The retention job: drops records older than `days` days, moves the chain's anchor to the last one dropped and
   * records that it did (in the same transaction). Returns how many it dropped.
   */
  async applyRetention(days: number): Promise<number> {
    const before = new Date(this.#clock().getTime() - days * 86_400_000);
    return this.#db.transaction().execute(async (trx) => {
      await trx.selectFrom('audit_chain').select('seq').where('id', '=', 1).forUpdate().executeTakeFirstOrThrow();
      const last = await trx
        .selectFrom('audit_events')
        .select(['seq', 'hash'])
        .where('at', '<', before)
        .orderBy('seq', 'desc')
        .limit(1)
        .executeTakeFirst();
      if (!last) return 0;
      const result = await trx.deleteFrom('audit_events').where('seq', '<=', last.seq).executeTakeFirst();
      const dropped = Number(result.numDeletedRows);
      await trx
        .updateTable('audit_chain')
        .set({ anchor_seq: Number(last.seq), anchor_hash: last.hash })
        .where('id', '=', 1)
        .execute();
      await this.append(
        trx,
        { actor: { type: 'system', id: 'audit-retention' } },
        {
          action: 'audit.retention_applied',
          target: { type: 'audit_log', id: 'audit_events' },
          changes: { dropped, olderThan: before.toISOString(), retentionDays: days, throughSeq: Number(last.seq) },
        },
      );
      return dropped;
    });
  }
}

function cleanActor(actor: Actor): Actor {
  return {
    type: actor.type,
    id: actor.id,
    ...(actor.name ? { name: actor.name } : {}),
    ...(actor.email ? { email: actor.email } : {}),
  };
}

function toEvent(row: Selectable<AuditEventsTable>): AuditEvent {
  const json = <T>(v: unknown): T => (typeof v === 'string' ? JSON.parse(v) : v) as T;
  return {
    id: row.id,
    seq: Number(row.seq),
    at: new Date(row.at).toISOString(),
    actor: json<Actor>(row.actor),
    action: row.action,
    target: { type: row.target_type, id: row.target_id },
    ip: row.ip,
    userAgent: row.user_agent,
    requestId: row.request_id,
    changes: json<Record<string, unknown> | null>(row.changes),
    hash: row.hash,
  };
}

/** The hash of a record: SHA-256 of the previous hash and the record's content in a canonical form (sorted keys). */
export function chainHash(prevHash: string, event: Omit<AuditEvent, 'hash'>): string {
  const content = {
    id: event.id,
    seq: event.seq,
    at: event.at,
    actor: event.actor,
    action: event.action,
    target: event.target,
    ip: event.ip,
    userAgent: event.userAgent,
    requestId: event.requestId,
    changes: event.changes,
  };
  return sha256Hex(`${prevHash}\n${canonicalJson(content)}`);
}

/** JSON with object keys sorted at every level (jsonb keeps no key order). */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
}
