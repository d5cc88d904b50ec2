import { withAudit, type AuditHook } from '../audit/audit-log.ts';
import { randomBytes } from 'node:crypto';
import { Refusal } from '../../kernel/refusal.ts';
import { sha256Hex } from '../../infra/crypto.ts';
import { newId } from '../../infra/ids.ts';
import type { AccountsService } from '../accounts/accounts-service.ts';
import type { Mode } from '../../kernel/tenant.ts';
import type { Db } from '../tables.ts';

/**
 * How long a login link can be used: long enough to open it from a terminal or an email, short enough to leak little.
 */
export const LOGIN_LINK_TTL_MS = 5 * 60_000;
/** Where a link is opened; `/dashboard/login/<token>`. */
export const DASHBOARD_PATH = '/dashboard';

export interface LoginLink {
  url: string;
  expiresAt: string;
  mode: Mode;
}

/** What a link opened: the reseller and mode of the session it starts. */
export interface OpenedLink {
  resellerId: string;
  mode: Mode;
  linkId: string;
  /** The API key that made the link (the session acts with its mode and scopes); null for the back-office's. */
  keyId: string | null;
}

export type LinkRefusal = 'unknown' | 'used' | 'expired' | 'account_not_active' | 'key_revoked';

/**
 * Login links to the reseller dashboard (Stripe Express's pattern: resellers have API keys,
 * not passwords). A link is made for an approved reseller in one mode, is valid 5 minutes and
 * opens one session: taking it is one conditional UPDATE, so two browsers racing for it get
 * one session between them.
 */
export class DashboardLinks {
  readonly #db: Db;
  readonly #accounts: AccountsService;
  readonly #publicUrl: string;
  readonly #clock: () => Date;

  constructor(deps: { db: Db; accounts: AccountsService; publicUrl: string; clock?: () => Date }) {
    this.#db = deps.db;
    this.#accounts = deps.accounts;
    this.#publicUrl = deps.publicUrl;
    this.#clock = deps.clock ?? (() => new Date());
  }

  async create(
    input: { resellerId: string; mode: Mode; keyId?: string | null },
    audit?: AuditHook<{ id: string; resellerId: string; mode: Mode; expiresAt: string }>,
  ): Promise<LoginLink> {
    const reseller = await this.#accounts.getReseller(input.resellerId);
    if (reseller.status !== 'approved') {
      throw new Refusal(
        'account_not_active',
        `The reseller account is ${reseller.status}; the dashboard is open to approved accounts only.`,
      );
    }
    const token = randomBytes(32).toString('base64url');
    const now = this.#clock();
    const expiresAt = new Date(now.getTime() + LOGIN_LINK_TTL_MS);
    const id = newId('dsl', now.getTime());
    await withAudit(this.#db, audit, async (db) => {
      await db
        .insertInto('dashboard_links')
        .values({
          id,
          reseller_id: input.resellerId,
          mode: input.mode,
          key_id: input.keyId ?? null,
          token_hash: sha256Hex(token),
          expires_at: expiresAt,
          created_at: now,
        })
        .execute();
      return { id, resellerId: input.resellerId, mode: input.mode, expiresAt: expiresAt.toISOString() };
    });
    return {
      url: `${this.#publicUrl}${DASHBOARD_PATH}/login/${token}`,
      expiresAt: expiresAt.toISOString(),
      mode: input.mode,
    };
  }

  /** Whether a link would open now, without taking it (the page a link shows before its sign-in button). */
  async check(
    token: string,
  ): Promise<{ ok: true; resellerName: string; mode: Mode } | { ok: false; reason: LinkRefusal }> {
    const row = await this.#db
      .selectFrom('dashboard_links')
      .selectAll()
      .where('token_hash', '=', sha256Hex(token))
      .executeTakeFirst();
    if (!row) return { ok: false, reason: 'unknown' };
    if (row.key_id && !(await this.#keyActive(row.key_id, row.reseller_id)))
      return { ok: false, reason: 'key_revoked' };
    if (row.used_at) return { ok: false, reason: 'used' };
    if (row.expires_at.getTime() <= this.#clock().getTime()) return { ok: false, reason: 'expired' };
    const reseller = await this.#accounts.getReseller(row.reseller_id);
    if (reseller.status !== 'approved') return { ok: false, reason: 'account_not_active' };
    return { ok: true, resellerName: reseller.name, mode: row.mode };
  }

  /** Takes the link: once, before it expires, for an approved reseller. */
  async open(token: string): Promise<{ ok: true; link: OpenedLink } | { ok: false; reason: LinkRefusal }> {
    const now = this.#clock();
    const row = await this.#db
      .updateTable('dashboard_links')
      .set({ used_at: now })
      .where('token_hash', '=', sha256Hex(token))
      .where('used_at', 'is', null)
      .where('expires_at', '>', now)
      .returningAll()
      .executeTakeFirst();
    if (!row) {
      const seen = await this.check(token);
      return { ok: false, reason: seen.ok ? 'used' : seen.reason };
    }
    // Revoking a key ends its unused links first; this closes the race with a link taken meanwhile.
    if (row.key_id && !(await this.#keyActive(row.key_id, row.reseller_id)))
      return { ok: false, reason: 'key_revoked' };
    const reseller = await this.#accounts.getReseller(row.reseller_id);
    if (reseller.status !== 'approved') return { ok: false, reason: 'account_not_active' };
    return { ok: true, link: { resellerId: row.reseller_id, mode: row.mode, linkId: row.id, keyId: row.key_id } };
  }

  /** Ends the unused links an API key made (the key was revoked): they expire now. */
  async revokeForKey(keyId: string): Promise<void> {
    const now = this.#clock();
    await this.#db
      .updateTable('dashboard_links')
      .set({ expires_at: now })
      .where('key_id', '=', keyId)
      .where('used_at', 'is', null)
      .where('expires_at', '>', now)
      .execute();
  }

  async #keyActive(keyId: string, resellerId: string): Promise<boolean> {
    const grant = await this.#accounts.apiKeyGrant(keyId);
    return grant !== undefined && !grant.revoked && grant.resellerId === resellerId;
  }

  /** Maintenance: links past their time are of no use to anyone. */
  async purgeExpired(): Promise<void> {
    await this.#db
      .deleteFrom('dashboard_links')
      .where('expires_at', '<', new Date(this.#clock().getTime() - 24 * 3600_000))
      .execute();
  }
}
