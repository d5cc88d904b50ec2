import type { AuditHook } from '../audit/audit-log.ts';
import { sha256Hex } from '../../infra/crypto.ts';
import { newId, randomToken } from '../../infra/ids.ts';
import { sql, type Kysely } from 'kysely';
import type { SessionKind, SessionsTables } from './sessions-tables.ts';

/** A live browser session, as the middleware hands it to handlers. */
export interface BrowserSession {
  id: string;
  kind: SessionKind;
  subject: string;
  csrfToken: string;
  data: Record<string, unknown>;
  createdAt: Date;
  expiresAt: Date;
}

/** How often a session's `last_seen_at` is written at most (not on every request). */
const TOUCH_EVERY_MS = 60_000;

/**
 * The browser sessions of both kinds. A session is found only by its own kind: an operator's
 * cookie never opens a reseller page, nor the reverse. The token leaves here once, at creation;
 * the table keeps its SHA-256.
 */
export class SessionStore {
  readonly #db: Kysely<SessionsTables>;
  readonly #clock: () => Date;

  constructor(deps: { db: Kysely<any>; clock?: () => Date }) {
    this.#db = deps.db as Kysely<SessionsTables>;
    this.#clock = deps.clock ?? (() => new Date());
  }

  /** Opens a session; returns the token for the cookie (never stored) with the session. */
  async create(
    kind: SessionKind,
    subject: string,
    opts: { ttlMs: number; data?: Record<string, unknown>; userAgent?: string | undefined; ip?: string | undefined },
    /** The sign-in's record in the audit trail, written in the same transaction as the session. */
    audit?: AuditHook<BrowserSession>,
  ): Promise<{ token: string; session: BrowserSession }> {
    const now = this.#clock();
    const token = `${kind === 'operator' ? 'ops' : 'rds'}_${randomToken(32)}`;
    const row = {
      id: newId('ses'),
      kind,
      subject,
      token_hash: sha256Hex(token),
      csrf_token: randomToken(24),
      data: JSON.stringify(opts.data ?? {}),
      user_agent: opts.userAgent?.slice(0, 300) ?? null,
      ip: opts.ip ?? null,
      created_at: now,
      last_seen_at: now,
      expires_at: new Date(now.getTime() + opts.ttlMs),
      revoked_at: null,
    };
    const session: BrowserSession = {
      id: row.id,
      kind,
      subject,
      csrfToken: row.csrf_token,
      data: opts.data ?? {},
      createdAt: now,
      expiresAt: row.expires_at,
    };
    if (!audit) await this.#db.insertInto('browser_sessions').values(row).execute();
    else
      await this.#db.transaction().execute(async (trx) => {
        await trx.insertInto('browser_sessions').values(row).execute();
        await audit(trx as never, session);
      });
    return { token, session };
  }

  /** The live session of `kind` whose token this is: not expired, not revoked; undefined otherwise. */
  async find(kind: SessionKind, token: string | undefined): Promise<BrowserSession | undefined> {
    if (!token || token.length > 200) return undefined;
    const now = this.#clock();
    const row = await this.#db
      .selectFrom('browser_sessions')
      .selectAll()
      .where('token_hash', '=', sha256Hex(token))
      .where('kind', '=', kind)
      .where('revoked_at', 'is', null)
      .where('expires_at', '>', now)
      .executeTakeFirst();
    if (!row) return undefined;
    if (now.getTime() - new Date(row.last_seen_at).getTime() > TOUCH_EVERY_MS) {
      await this.#db.updateTable('browser_sessions').set({ last_seen_at: now }).where('id', '=', row.id).execute();
    }
    const data = typeof row.data === 'string' ? (JSON.parse(row.data) as Record<string, unknown>) : (row.data ?? {});
    return {
      id: row.id,
      kind: row.kind,
      subject: row.subject,
      csrfToken: row.csrf_token,
      data,
      createdAt: new Date(row.created_at),
      expiresAt: new Date(row.expires_at),
    };
  }

  /** Ends one session (sign-out). */
  async revoke(id: string): Promise<void> {
    await this.#db
      .updateTable('browser_sessions')
      .set({ revoked_at: this.#clock() })
      .where('id', '=', id)
      .where('revoked_at', 'is', null)
      .execute();
  }

  /** Ends every session of a subject (a suspended reseller, a rotated admin token); returns how many. */
  async revokeAll(kind: SessionKind, subject: string): Promise<number> {
    const result = await this.#db
      .updateTable('browser_sessions')
      .set({ revoked_at: this.#clock() })
      .where('kind', '=', kind)
      .where('subject', '=', subject)
      .where('revoked_at', 'is', null)
      .executeTakeFirst();
    return Number(result.numUpdatedRows);
  }

  /** Ends every reseller session an API key opened (`data.keyId`: the key was revoked); returns how many. */
  async revokeForKey(keyId: string): Promise<number> {
    const result = await this.#db
      .updateTable('browser_sessions')
      .set({ revoked_at: this.#clock() })
      .where('kind', '=', 'reseller')
      .where(sql<string>`data->>'keyId'`, '=', keyId)
      .where('revoked_at', 'is', null)
      .executeTakeFirst();
    return Number(result.numUpdatedRows);
  }

  /** Forgets sessions that ended more than `keepMs` ago (a maintenance sweep). */
  async sweep(keepMs = 7 * 24 * 3600 * 1000): Promise<void> {
    const before = new Date(this.#clock().getTime() - keepMs);
    await this.#db.deleteFrom('browser_sessions').where('expires_at', '<', before).execute();
    await this.#db.deleteFrom('browser_sessions').where('revoked_at', '<', before).execute();
  }
}
