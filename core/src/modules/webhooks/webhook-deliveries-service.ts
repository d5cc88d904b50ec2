import type { Selectable } from 'kysely';
import { notFound } from '../../kernel/refusal.ts';
import type { AuthContext } from '../../kernel/auth-context.ts';
import {
  listEnvelope,
  resolvePage,
  type CursorCodec,
  type ListEnvelope,
  newestFirst,
} from '../../kernel/pagination.ts';
import { newId } from '../../infra/ids.ts';
import { markEventDispatched } from '../events/event-fragments.ts';
import type { Outbox } from '../events/outbox.ts';
import type { Db } from '../tables.ts';
import type { WebhookDeliverer } from './webhook-deliverer.ts';
import type { WebhookEndpointsService } from './webhook-endpoints-service.ts';
import { PING_EVENT } from './webhook-event-types.ts';
import { toDeliveryView, type WebhookDeliveryView } from './webhook-views.ts';
import type { DeliveryStatus, WebhookAttemptsTable } from './webhooks-tables.ts';

type Caller = Pick<AuthContext, 'resellerId' | 'mode'>;

/** Attempts shown per delivery: enough for the whole automatic schedule plus a few manual ones. */
const ATTEMPTS_SHOWN = 20;

/** Reseller webhook deliveries waiting and failed, and recent attempts by outcome (WebhookDeliveriesService.health). */
export interface DeliveryHealth {
  deliveries: { pending: number; failed: number };
  attempts: { succeeded: number; failed: number };
}

/** The delivery log of an endpoint, manual redelivery and the test ping. */
export class WebhookDeliveriesService {
  readonly #db: Db;
  readonly #endpoints: WebhookEndpointsService;
  readonly #deliverer: WebhookDeliverer;
  readonly #outbox: Outbox;
  readonly #cursors: CursorCodec;
  readonly #clock: () => Date;

  constructor(deps: {
    db: Db;
    endpoints: WebhookEndpointsService;
    deliverer: WebhookDeliverer;
    outbox: Outbox;
    cursors: CursorCodec;
    clock?: () => Date;
  }) {
    this.#db = deps.db;
    this.#endpoints = deps.endpoints;
    this.#deliverer = deps.deliverer;
    this.#outbox = deps.outbox;
    this.#cursors = deps.cursors;
    this.#clock = deps.clock ?? (() => new Date());
  }

  /**
   * What operators alert on (the store health gauges): deliveries not delivered by status, and
   * the attempts since `since` that finished, by outcome. Every reseller's; two queries side by side.
   */
  async health(since: Date): Promise<DeliveryHealth> {
    const [deliveries, attempts] = await Promise.all([
      this.#db
        .selectFrom('webhook_deliveries')
        .select((eb) => [
          eb.fn.countAll<number>().filterWhere('status', '=', 'pending').as('pending'),
          eb.fn.countAll<number>().filterWhere('status', '=', 'failed').as('failed'),
        ])
        .where('status', 'in', ['pending', 'failed'])
        .executeTakeFirstOrThrow(),
      this.#db
        .selectFrom('webhook_attempts')
        .select((eb) => [
          eb.fn.countAll<number>().filterWhere('succeeded', '=', true).as('succeeded'),
          eb.fn.countAll<number>().filterWhere('succeeded', '=', false).as('failed'),
        ])
        .where('started_at', '>=', since)
        .where('latency_ms', 'is not', null)
        .executeTakeFirstOrThrow(),
    ]);
    return {
      deliveries: { pending: Number(deliveries.pending), failed: Number(deliveries.failed) },
      attempts: { succeeded: Number(attempts.succeeded), failed: Number(attempts.failed) },
    };
  }

  /** Newest first, with each delivery's attempts. */
  async list(
    caller: Caller,
    endpointId: string,
    query: { limit?: number | undefined; cursor?: string | undefined; status?: DeliveryStatus | undefined },
  ): Promise<ListEnvelope<WebhookDeliveryView>> {
    await this.#endpoints.load(caller, endpointId);
    const page = resolvePage(this.#cursors, `webhook_deliveries:${endpointId}`, query);
    let q = this.#db.selectFrom('webhook_deliveries').selectAll().where('endpoint_id', '=', endpointId);
    if (query.status) q = q.where('status', '=', query.status);
    const rows = await newestFirst(q, page);
    const attempts = await this.#attemptsOf(rows.slice(0, page.limit).map((r) => r.id));
    return listEnvelope(
      this.#cursors,
      `webhook_deliveries:${endpointId}`,
      page,
      rows,
      (r) => [r.created_at.toISOString(), r.id],
      (r) => toDeliveryView(r, attempts.get(r.id) ?? []),
    );
  }

  /** Sends the delivery again now and answers with the outcome. */
  async retry(caller: Caller, endpointId: string, deliveryId: string): Promise<WebhookDeliveryView> {
    await this.#endpoints.load(caller, endpointId);
    const row = await this.#db
      .selectFrom('webhook_deliveries')
      .select('id')
      .where('id', '=', deliveryId)
      .where('endpoint_id', '=', endpointId)
      .executeTakeFirst();
    if (!row) throw notFound('webhook delivery', deliveryId);
    await this.#deliverer.sendNow(deliveryId);
    return this.#view(deliveryId);
  }

  /**
   * Sends a signed `ping` event to the endpoint now and answers with the outcome. The ping is
   * an event like any other (same body shape, headers and signature) but is not retried.
   */
  async ping(caller: Caller, endpointId: string): Promise<WebhookDeliveryView> {
    const endpoint = await this.#endpoints.load(caller, endpointId);
    const now = this.#clock();
    const deliveryId = newId('whd', now.getTime());
    await this.#db.transaction().execute(async (trx) => {
      const event = await this.#outbox.write(trx, {
        resellerId: endpoint.reseller_id,
        mode: endpoint.mode,
        type: PING_EVENT,
        data: { webhookId: endpoint.id },
        at: now,
      });
      // Dispatched already: the ping goes to this endpoint only, never through the fan-out.
      await markEventDispatched(trx, event.id, now);
      await trx
        .insertInto('webhook_deliveries')
        .values({
          id: deliveryId,
          endpoint_id: endpoint.id,
          event_id: event.id,
          event_type: PING_EVENT,
          status: 'pending',
          attempts: 0,
          next_attempt_at: null,
          created_at: now,
        })
        .execute();
    });
    await this.#deliverer.sendNow(deliveryId);
    return this.#view(deliveryId);
  }

  async #view(deliveryId: string): Promise<WebhookDeliveryView> {
    const row = await this.#db
      .selectFrom('webhook_deliveries')
      .selectAll()
      .where('id', '=', deliveryId)
      .executeTakeFirstOrThrow();
    return toDeliveryView(row, (await this.#attemptsOf([deliveryId])).get(deliveryId) ?? []);
  }

  async #attemptsOf(deliveryIds: string[]): Promise<Map<string, Array<Selectable<WebhookAttemptsTable>>>> {
    const byDelivery = new Map<string, Array<Selectable<WebhookAttemptsTable>>>();
    if (deliveryIds.length === 0) return byDelivery;
    const rows = await this.#db
      .selectFrom('webhook_attempts')
      .selectAll()
      .where('delivery_id', 'in', deliveryIds)
      .orderBy('attempt')
      .execute();
    for (const r of rows) {
      const list = byDelivery.get(r.delivery_id) ?? [];
      list.push(r);
      byDelivery.set(r.delivery_id, list);
    }
    for (const [id, list] of byDelivery) byDelivery.set(id, list.slice(-ATTEMPTS_SHOWN));
    return byDelivery;
  }
}
