import type { Selectable } from 'kysely';
import { sha256Hex } from '../../infra/crypto.ts';
import { newId, randomToken } from '../../infra/ids.ts';
import type { AuditLog, AuditContext } from '../audit/audit-log.ts';
import type { Actor } from '../audit/audit-tables.ts';
import { notFound } from '../../kernel/refusal.ts';
import type { Db } from '../tables.ts';
import type { OperatorRole, OperatorTokensTable } from './operator-tokens-tables.ts';

export const OPERATOR_TOKEN_PREFIX = 'opt_';

export interface OperatorTokenView {
  id: string;
  name: string;
  role: OperatorRole;
  prefix: string;
  createdBy: string;
  createdAt: string;
  expiresAt: string | null;
  revokedAt: string | null;
  lastUsedAt: string | null;
}

/**
 * Operator tokens: the back-office credentials of machines and scripts (`opt_…`), each with a role. Only the token's
 * SHA-256 is kept; it is shown once, when made. Every request reads the table (no cache): a revocation holds at once,
 * in every process.
 */
export class OperatorTokens {
  readonly #db: Db;
  readonly #audit: AuditLog;
  readonly #clock: () => Date;

  constructor(deps: { db: Db; audit: AuditLog; clock?: () => Date }) {
    this.#db = deps.db;
    this.#audit = deps.audit;
    this.#clock = deps.clock ?? (() => new Date());
  }

  async create(
    ctx: AuditContext,
    input: { name: string; role: OperatorRole; expiresInDays?: number | undefined },
  ): Promise<OperatorTokenView & { token: string }> {
    const now = this.#clock();
    const token = `${OPERATOR_TOKEN_PREFIX}${randomToken(32)}`;
    const expiresAt = input.expiresInDays ? new Date(now.getTime() + input.expiresInDays * 86_400_000) : null;
    return this.#db.transaction().execute(async (trx) => {
      const row = await trx
        .insertInto('operator_tokens')
        .values({
          id: newId('opk', now.getTime()),
          name: input.name,
          role: input.role,
          prefix: token.slice(0, 10),
          token_hash: sha256Hex(token),
          created_by: `${ctx.actor.type}:${ctx.actor.id}`,
          created_at: now,
          expires_at: expiresAt,
        })
        .returningAll()
        .executeTakeFirstOrThrow();
      await this.#audit.append(trx, ctx, {
        action: 'operator_token.created',
        target: { type: 'operator_token', id: row.id },
        changes: { name: row.name, role: row.role, expiresAt: expiresAt?.toISOString() ?? null },
      });
      return { ...toView(row), token };
    });
  }

  async list(): Promise<OperatorTokenView[]> {
    const rows = await this.#db.selectFrom('operator_tokens').selectAll().orderBy('id', 'desc').execute();
    return rows.map(toView);
  }

  async revoke(ctx: AuditContext, id: string): Promise<OperatorTokenView> {
    return this.#db.transaction().execute(async (trx) => {
      const row = await trx
        .updateTable('operator_tokens')
        .set({ revoked_at: this.#clock() })
        .where('id', '=', id)
        .where('revoked_at', 'is', null)
        .returningAll()
        .executeTakeFirst();
      if (!row) {
        const existing = await trx.selectFrom('operator_tokens').selectAll().where('id', '=', id).executeTakeFirst();
        if (!existing) throw notFound('operator token', id);
        return toView(existing);
      }
      await this.#audit.append(trx, ctx, {
        action: 'operator_token.revoked',
        target: { type: 'operator_token', id: row.id },
        changes: { name: row.name, role: row.role },
      });
      return toView(row);
    });
  }

  /** The role and identity of a presented token, or why it opens nothing. */
  async authenticate(
    presented: string,
  ): Promise<
    { ok: true; role: OperatorRole; actor: Actor } | { ok: false; reason: 'unknown' | 'revoked' | 'expired' }
  > {
    if (!presented.startsWith(OPERATOR_TOKEN_PREFIX) || presented.length > 200) return { ok: false, reason: 'unknown' };
    const row = await this.#db
      .selectFrom('operator_tokens')
      .selectAll()
      .where('token_hash', '=', sha256Hex(presented))
      .executeTakeFirst();
    if (!row) return { ok: false, reason: 'unknown' };
    if (row.revoked_at) return { ok: false, reason: 'revoked' };
    const now = this.#clock();
    if (row.expires_at && row.expires_at.getTime() <= now.getTime()) return { ok: false, reason: 'expired' };
    if (!row.last_used_at || now.getTime() - row.last_used_at.getTime() > 60_000) {
      this.#db
        .updateTable('operator_tokens')
        .set({ last_used_at: now })
        .where('id', '=', row.id)
        .execute()
        .catch(() => undefined);
    }
    return { ok: true, role: row.role, actor: { type: 'operator_token', id: row.id, name: row.name } };
  }
}

function toView(row: Selectable<OperatorTokensTable>): OperatorTokenView {
  return {
    id: row.id,
    name: row.name,
    role: row.role,
    prefix: row.prefix,
    createdBy: row.created_by,
    createdAt: row.created_at.toISOString(),
    expiresAt: row.expires_at?.toISOString() ?? null,
    revokedAt: row.revoked_at?.toISOString() ?? null,
    lastUsedAt: row.last_used_at?.toISOString() ?? null,
  };
}
