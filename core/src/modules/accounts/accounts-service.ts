import { Refusal, notFound } from '../../kernel/refusal.ts';
import type { AuthContext } from '../../kernel/auth-context.ts';
import {
  listEnvelope,
  resolvePage,
  type CursorCodec,
  type ListEnvelope,
  newestFirst,
} from '../../kernel/pagination.ts';
import { sha256Hex } from '../../infra/crypto.ts';
import { newId } from '../../infra/ids.ts';
import type { Db } from '../tables.ts';
import type { Selectable } from 'kysely';
import { withAudit, type AuditHook } from '../audit/audit-log.ts';
import type { ApiKeysTable, ResellersTable, ResellerStatus } from './accounts-tables.ts';
import type { Mode } from '../../kernel/tenant.ts';

export type ResellerRow = Selectable<ResellersTable>;
type ApiKeyRow = Selectable<ApiKeysTable>;
import { generateApiKey, modeOfKey } from './api-key-format.ts';
import { AuthCache } from './auth-cache.ts';
import type { Scope } from '../../kernel/scopes.ts';

export interface Reseller {
  id: string;
  name: string;
  email: string;
  phone: string;
  status: ResellerStatus;
  discountPercent: number;
  createdAt: string;
  updatedAt: string;
}

export interface ApiKeyView {
  id: string;
  resellerId: string;
  prefix: string;
  mode: Mode;
  scopes: Scope[] | null;
  revokedAt: string | null;
  lastUsedAt: string | null;
  createdAt: string;
}

const LAST_USED_RESOLUTION_MS = 60_000;

/** Resellers and their API keys: the back-office creates them, every API request authenticates here. */
export class AccountsService {
  readonly #db: Db;
  readonly #clock: () => Date;
  readonly #cache: AuthCache;
  readonly #keyRevokedListeners: Array<(keyId: string) => Promise<void>> = [];

  constructor(deps: { db: Db; clock?: () => Date; cache?: AuthCache }) {
    this.#db = deps.db;
    this.#clock = deps.clock ?? (() => new Date());
    this.#cache = deps.cache ?? new AuthCache({ ttlMs: 0, enabled: false });
  }

  async createReseller(
    input: {
      name: string;
      email: string;
      phone: string;
      discountPercent: number;
    },
    audit?: AuditHook<Reseller>,
  ): Promise<Reseller> {
    const now = this.#clock();
    return withAudit(this.#db, audit, async (db) => {
      const row = await db
        .insertInto('resellers')
        .values({
          id: newId('rsl', now.getTime()),
          name: input.name,
          email: input.email,
          phone: input.phone,
          status: 'pending',
          discount_bps: Math.round(input.discountPercent * 100),
          created_at: now,
          updated_at: now,
        })
        .returningAll()
        .executeTakeFirstOrThrow();
      return toReseller(row);
    });
  }

  /**
   * The back-office's list, newest first: `q` matches the id exactly or a part of the name or
   * e-mail (case-insensitive), `status` filters. Keyset pages on (created_at, id).
   */
  async listResellers(
    cursors: CursorCodec,
    query: {
      q?: string | undefined;
      status?: ResellerStatus | undefined;
      limit?: number | undefined;
      cursor?: string | undefined;
    },
  ): Promise<ListEnvelope<Reseller>> {
    const page = resolvePage(cursors, 'resellers', query);
    let q = this.#db.selectFrom('resellers').selectAll();
    if (query.status) q = q.where('status', '=', query.status);
    if (query.q) {
      const like = `%${query.q.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
      q = q.where((eb) =>
        eb.or([
          eb('id', '=', query.q!),
          eb(eb.fn('lower', ['name']), 'like', like),
          eb(eb.fn('lower', ['email']), 'like', like),
        ]),
      );
    }
    const rows = await newestFirst(q, page);
    return listEnvelope(cursors, 'resellers', page, rows, (r) => [r.created_at.toISOString(), r.id], toReseller);
  }

  async getReseller(id: string): Promise<Reseller> {
    const row = await this.#db.selectFrom('resellers').selectAll().where('id', '=', id).executeTakeFirst();
    if (!row) throw notFound('reseller', id);
    return toReseller(row);
  }

  /**
   * The internal row (discount in basis points, contact data) for other modules; served from the
   * cache of authenticated keys when it is on (cleared with them when the account changes).
   */
  async resellerRow(id: string): Promise<ResellerRow> {
    const cached = this.#cache.reseller<ResellerRow>(id);
    if (cached) return cached;
    const row = await this.#db.selectFrom('resellers').selectAll().where('id', '=', id).executeTakeFirst();
    if (!row) throw notFound('reseller', id);
    this.#cache.setReseller(id, Object.freeze(row));
    return row;
  }

  async setStatus(id: string, status: ResellerStatus, audit?: AuditHook<Reseller>): Promise<Reseller> {
    const reseller = await withAudit(this.#db, audit, async (db) => {
      const row = await db
        .updateTable('resellers')
        .set({ status, updated_at: this.#clock() })
        .where('id', '=', id)
        .returningAll()
        .executeTakeFirst();
      if (!row) throw notFound('reseller', id);
      return toReseller(row);
    });
    this.#cache.invalidateReseller(id);
    return reseller;
  }

  /**
   * Creates a key and returns it in full, the only time it is ever shown. Without `scopes` the
   * key has every scope; with `[]` none.
   */
  async createApiKey(
    resellerId: string,
    input: { mode: Mode; scopes?: Scope[] | undefined },
    audit?: AuditHook<ApiKeyView>,
  ): Promise<ApiKeyView & { key: string }> {
    const reseller = await this.getReseller(resellerId);
    if (reseller.status !== 'approved') {
      throw new Refusal(
        'account_not_approved',
        `Reseller ${resellerId} is ${reseller.status}; only an approved reseller account can create API keys.`,
      );
    }
    const { key, prefix } = generateApiKey(input.mode);
    const now = this.#clock();
    // Absent is every scope (NULL); an empty list is none (jsonb '[]'): the key can only call GET /me.
    const scopes = input.scopes ? [...new Set(input.scopes)].sort() : null;
    const view = await withAudit(this.#db, audit, async (db) => {
      const row = await db
        .insertInto('api_keys')
        .values({
          id: newId('key', now.getTime()),
          reseller_id: resellerId,
          mode: input.mode,
          prefix,
          key_hash: sha256Hex(key),
          scopes: scopes ? JSON.stringify(scopes) : null,
          created_at: now,
        })
        .returningAll()
        .executeTakeFirstOrThrow();
      return toKeyView(row);
    });
    return { ...view, key };
  }

  async revokeApiKey(id: string, audit?: AuditHook<ApiKeyView>): Promise<ApiKeyView> {
    const view = await withAudit(this.#db, audit, async (db) => {
      const row = await db
        .updateTable('api_keys')
        .set({ revoked_at: this.#clock() })
        .where('id', '=', id)
        .returningAll()
        .executeTakeFirst();
      if (!row) throw notFound('API key', id);
      return toKeyView(row);
    });
    this.#cache.invalidateKey(id);
    // What the key opened ends with it, before the revocation is answered: its dashboard
    // sessions and unused login links (in the database, so every process sees it at once).
    for (const listener of this.#keyRevokedListeners) await listener(id);
    return view;
  }

  /** Runs `listener` whenever a key is revoked, before the revocation is answered. */
  onKeyRevoked(listener: (keyId: string) => Promise<void>): void {
    this.#keyRevokedListeners.push(listener);
  }

  /**
   * What a key grants now (its reseller, mode and scopes, and whether it is revoked), read from
   * the database: a dashboard session opened by the key checks it on every page.
   */
  async apiKeyGrant(
    id: string,
  ): Promise<{ resellerId: string; mode: Mode; scopes: ReadonlySet<Scope> | null; revoked: boolean } | undefined> {
    const row = await this.#db
      .selectFrom('api_keys')
      .select(['reseller_id', 'mode', 'scopes', 'revoked_at'])
      .where('id', '=', id)
      .executeTakeFirst();
    if (!row) return undefined;
    return {
      resellerId: row.reseller_id,
      mode: row.mode,
      scopes: row.scopes ? new Set(row.scopes as Scope[]) : null,
      revoked: row.revoked_at !== null,
    };
  }

  async listApiKeys(resellerId: string): Promise<ApiKeyView[]> {
    const rows = await this.#db
      .selectFrom('api_keys')
      .selectAll()
      .where('reseller_id', '=', resellerId)
      .orderBy('id', 'desc')
      .execute();
    return rows.map(toKeyView);
  }

  /**
   * Resolves a bearer key: 401 when it is missing, malformed, unknown or revoked; 403 when the
   * account is pending or suspended.
   */
  async authenticate(presented: string | undefined): Promise<AuthContext> {
    if (!presented) throw unauthorized('No API key: send it as Authorization: Bearer <API_KEY>.');
    if (!modeOfKey(presented))
      throw unauthorized(
        'The API key is not valid: a key is prk_live_ or prk_test_ followed by 32 letters and digits, exactly as it was shown when it was created.',
      );
    const keyHash = sha256Hex(presented);
    const now = this.#clock();
    const cached = this.#cache.get(keyHash);
    if (cached) {
      if (now.getTime() - cached.lastUsedAt > LAST_USED_RESOLUTION_MS) {
        cached.lastUsedAt = now.getTime();
        this.#touch(cached.auth.keyId, now);
      }
      return cached.auth;
    }
    const row = await this.#db
      .selectFrom('api_keys')
      .innerJoin('resellers', 'resellers.id', 'api_keys.reseller_id')
      .select([
        'api_keys.id as keyId',
        'api_keys.mode',
        'api_keys.scopes',
        'api_keys.revoked_at',
        'api_keys.last_used_at',
        'resellers.id as resellerId',
        'resellers.name as resellerName',
        'resellers.status',
        'resellers.discount_bps',
      ])
      .where('api_keys.key_hash', '=', keyHash)
      .executeTakeFirst();
    if (!row) throw unauthorized('The API key is not valid.');
    if (row.revoked_at) throw unauthorized('The API key has been revoked.');
    if (row.status !== 'approved') {
      throw new Refusal(
        'account_not_active',
        `The reseller account is ${row.status}; the API is available to approved accounts only.`,
      );
    }
    let lastUsedAt = row.last_used_at?.getTime() ?? 0;
    if (now.getTime() - lastUsedAt > LAST_USED_RESOLUTION_MS) {
      lastUsedAt = now.getTime();
      this.#touch(row.keyId, now);
    }
    const auth: AuthContext = {
      keyId: row.keyId,
      resellerId: row.resellerId,
      resellerName: row.resellerName,
      discountBps: row.discount_bps,
      mode: row.mode,
      scopes: row.scopes ? new Set(row.scopes as Scope[]) : null,
    };
    Object.freeze(auth);
    this.#cache.set(keyHash, auth, lastUsedAt);
    return auth;
  }

  /** Bookkeeping only: never delays or fails the request. */
  #touch(keyId: string, now: Date): void {
    this.#db
      .updateTable('api_keys')
      .set({ last_used_at: now })
      .where('id', '=', keyId)
      .execute()
      .catch(() => undefined);
  }
}

function unauthorized(message: string): Refusal {
  return new Refusal('unauthorized', message);
}

function toReseller(row: ResellerRow): Reseller {
  return {
    id: row.id,
    name: row.name,
    email: row.email,
    phone: row.phone,
    status: row.status,
    discountPercent: row.discount_bps / 100,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

function toKeyView(row: ApiKeyRow): ApiKeyView {
  return {
    id: row.id,
    resellerId: row.reseller_id,
    prefix: row.prefix,
    mode: row.mode,
    scopes: row.scopes as Scope[] | null,
    revokedAt: row.revoked_at?.toISOString() ?? null,
    lastUsedAt: row.last_used_at?.toISOString() ?? null,
    createdAt: row.created_at.toISOString(),
  };
}
