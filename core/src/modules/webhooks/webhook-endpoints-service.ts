import { sql, type Selectable } from 'kysely';
import { notFound, rejected } from '../../kernel/refusal.ts';
import {
  listEnvelope,
  resolvePage,
  type CursorCodec,
  type ListEnvelope,
  newestFirst,
} from '../../kernel/pagination.ts';
import type { AuthContext } from '../../kernel/auth-context.ts';
import type { SecretBox } from '../../infra/crypto.ts';
import { newId } from '../../infra/ids.ts';
import type { Logger } from '../../infra/logger.ts';
import { SafeFetchError, type SafeFetchClient } from '../../infra/safe-fetch/safe-fetch.ts';
import type { Db } from '../tables.ts';
import { normaliseSubscription } from './webhook-event-types.ts';
import { newWebhookSecret } from './webhook-signer.ts';
import { toEndpointView, type WebhookEndpointView } from './webhook-views.ts';
import type { WebhookEndpointsTable } from './webhooks-tables.ts';

type Caller = Pick<AuthContext, 'resellerId' | 'mode'>;

/**
 * Registered receivers: create (SSRF-checked, secret shown once), list, read, delete, enable.
 * Every read is scoped to the caller's reseller and mode: a test key sees test endpoints only.
 */
export class WebhookEndpointsService {
  readonly #db: Db;
  readonly #box: SecretBox;
  readonly #safeFetch: SafeFetchClient;
  readonly #cursors: CursorCodec;
  readonly #logger: Logger;
  readonly #maxEndpoints: number;
  readonly #clock: () => Date;
  /** Told after an endpoint was deleted, with the deliveries that were still pending. */
  readonly #onDeleted: (pending: Array<{ id: string; attempts: number }>) => Promise<void>;

  constructor(deps: {
    db: Db;
    box: SecretBox;
    safeFetch: SafeFetchClient;
    cursors: CursorCodec;
    logger: Logger;
    maxEndpoints: number;
    onDeleted: (pending: Array<{ id: string; attempts: number }>) => Promise<void>;
    clock?: () => Date;
  }) {
    this.#db = deps.db;
    this.#box = deps.box;
    this.#safeFetch = deps.safeFetch;
    this.#cursors = deps.cursors;
    this.#logger = deps.logger;
    this.#maxEndpoints = deps.maxEndpoints;
    this.#onDeleted = deps.onDeleted;
    this.#clock = deps.clock ?? (() => new Date());
  }

  async create(
    caller: Caller,
    input: { url: string; events: string[] },
  ): Promise<WebhookEndpointView & { secret: string }> {
    const subscription = normaliseSubscription(input.events);
    if ('problems' in subscription)
      throw rejected('invalid_events', 'Unknown event kinds; see allowedValues.', subscription.problems);
    const url = await this.#checkUrl(input.url);
    const secret = newWebhookSecret();
    const row = await this.#db.transaction().execute(async (trx) => {
      // Serialises creations per (reseller, mode), so two at once cannot both pass the limit.
      await sql`select pg_advisory_xact_lock(hashtext(${`webhook_endpoints:${caller.resellerId}:${caller.mode}`}))`.execute(
        trx,
      );
      const { n } = await trx
        .selectFrom('webhook_endpoints')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('reseller_id', '=', caller.resellerId)
        .where('mode', '=', caller.mode)
        .where('deleted_at', 'is', null)
        .executeTakeFirstOrThrow();
      if (Number(n) >= this.#maxEndpoints) {
        throw rejected(
          'webhook_limit_reached',
          `At most ${this.#maxEndpoints} webhook endpoints per account and mode; delete one first.`,
          [{ field: 'url', code: 'webhook_limit_reached', limit: this.#maxEndpoints }],
        );
      }
      const now = this.#clock();
      return trx
        .insertInto('webhook_endpoints')
        .values({
          id: newId('whe', now.getTime()),
          reseller_id: caller.resellerId,
          mode: caller.mode,
          url,
          events: JSON.stringify(subscription.events),
          secret_sealed: this.#box.seal(secret),
          failing_since: null,
          disabled_at: null,
          disabled_reason: null,
          created_at: now,
          deleted_at: null,
        })
        .returningAll()
        .executeTakeFirstOrThrow();
    });
    return { ...toEndpointView(row), secret };
  }

  async list(
    caller: Caller,
    query: { limit?: number | undefined; cursor?: string | undefined },
  ): Promise<ListEnvelope<WebhookEndpointView>> {
    const page = resolvePage(this.#cursors, 'webhook_endpoints', query);
    const rows = await newestFirst(this.#owned(caller), page);
    return listEnvelope(
      this.#cursors,
      'webhook_endpoints',
      page,
      rows,
      (r) => [r.created_at.toISOString(), r.id],
      toEndpointView,
    );
  }

  async get(caller: Caller, id: string): Promise<WebhookEndpointView> {
    return toEndpointView(await this.load(caller, id));
  }

  /** The caller's live (not deleted) endpoint, or 404. */
  async load(caller: Caller, id: string): Promise<Selectable<WebhookEndpointsTable>> {
    const row = await this.#owned(caller).where('id', '=', id).executeTakeFirst();
    if (!row) throw notFound('webhook endpoint', id);
    return row;
  }

  /** Deletes the endpoint and cancels its pending deliveries in one transaction: no retry follows. */
  async delete(caller: Caller, id: string): Promise<{ id: string; deleted: true }> {
    const pending = await this.#db.transaction().execute(async (trx) => {
      const now = this.#clock();
      const deleted = await trx
        .updateTable('webhook_endpoints')
        .set({ deleted_at: now })
        .where('id', '=', id)
        .where('reseller_id', '=', caller.resellerId)
        .where('mode', '=', caller.mode)
        .where('deleted_at', 'is', null)
        .returning('id')
        .executeTakeFirst();
      if (!deleted) throw notFound('webhook endpoint', id);
      // Row locks in id order, as the deliverer's batched outcome writes take them: the two never deadlock.
      return trx
        .updateTable('webhook_deliveries')
        .set({ status: 'cancelled', next_attempt_at: null, last_error: 'endpoint deleted' })
        .where('id', 'in', (eb) =>
          eb
            .selectFrom('webhook_deliveries')
            .select('id')
            .where('endpoint_id', '=', id)
            .where('status', '=', 'pending')
            .orderBy('id')
            .forUpdate(),
        )
        .where('status', '=', 'pending')
        .returning(['id', 'attempts'])
        .execute();
    });
    await this.#onDeleted(pending).catch((err: Error) =>
      this.#logger.warn('webhook jobs not removed; they will find their delivery cancelled', { error: err.message }),
    );
    return { id, deleted: true };
  }

  /**
   * Replaces the signing secret and returns the new one, the only time it is shown. The secret
   * it replaces keeps signing too (a second `v1=` in X-Service-Signature) for `expiresInHours`,
   * so receivers can switch without losing a delivery; 0 retires it at once. A rotation during
   * an overlap retires the older secret: at most two sign at any time.
   */
  async rotateSecret(
    caller: Caller,
    id: string,
    input: { expiresInHours: number },
  ): Promise<WebhookEndpointView & { secret: string }> {
    const secret = newWebhookSecret();
    // Rotations of one endpoint take turns on its row: a second one sees the first one's secret as
    // current, so it retires the secret the first one kept, and never more than two sign.
    const { row, now } = await this.#db.transaction().execute(async (trx) => {
      const current = await trx
        .selectFrom('webhook_endpoints')
        .select('secret_sealed')
        .where('id', '=', id)
        .where('reseller_id', '=', caller.resellerId)
        .where('mode', '=', caller.mode)
        .where('deleted_at', 'is', null)
        .forUpdate()
        .executeTakeFirst();
      if (!current) throw notFound('webhook endpoint', id);
      const now = this.#clock();
      const overlap = input.expiresInHours > 0;
      const row = await trx
        .updateTable('webhook_endpoints')
        .set({
          secret_sealed: this.#box.seal(secret),
          previous_secret_sealed: overlap ? current.secret_sealed : null,
          previous_secret_expires_at: overlap ? new Date(now.getTime() + input.expiresInHours * 3_600_000) : null,
        })
        .where('id', '=', id)
        .returningAll()
        .executeTakeFirstOrThrow();
      return { row, now };
    });
    return { ...toEndpointView(row, now), secret };
  }

  /** Re-enables an endpoint that was disabled after failing continuously. */
  async enable(caller: Caller, id: string): Promise<WebhookEndpointView> {
    await this.load(caller, id);
    const row = await this.#db
      .updateTable('webhook_endpoints')
      .set({ disabled_at: null, disabled_reason: null, failing_since: null })
      .where('id', '=', id)
      .where('deleted_at', 'is', null)
      .returningAll()
      .executeTakeFirstOrThrow();
    return toEndpointView(row);
  }

  #owned(caller: Caller) {
    return this.#db
      .selectFrom('webhook_endpoints')
      .selectAll()
      .where('reseller_id', '=', caller.resellerId)
      .where('mode', '=', caller.mode)
      .where('deleted_at', 'is', null);
  }

  /**
   * https only, and the host must resolve to public addresses (unless allow-listed), checked now without sending
   * anything.
   */
  async #checkUrl(raw: string): Promise<string> {
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      throw invalidUrl('invalid_url', `'${raw}' is not a valid URL.`);
    }
    if (url.protocol !== 'https:') throw invalidUrl('scheme_not_allowed', 'Webhook endpoints must use https.');
    try {
      await this.#safeFetch.checkUrl(url.href);
    } catch (err) {
      if (err instanceof SafeFetchError) throw invalidUrl(err.code, `The webhook URL cannot be used: ${err.message}.`);
      throw err;
    }
    return url.href;
  }
}

function invalidUrl(code: string, message: string) {
  return rejected('invalid_webhook_url', message, [{ field: 'url', code, message }]);
}
