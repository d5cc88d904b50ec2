import { randomBytes } from 'node:crypto';
import { ApiError } from '../../http/api-error.ts';
import type { Logger } from '../../infra/logger.ts';
import type { JobQueue, Queue } from '../../infra/queue/job-queue.ts';
import type { AccountsService } from '../accounts/accounts-service.ts';
import type { OrderStatus } from '../orders/order-states.ts';
import type { OrdersService } from '../orders/orders-service.ts';
import type { Tracking } from '../orders/orders-tables.ts';
import type { ProductionHandoff, ProductionPartner } from './production-partner.ts';

const STEPS: OrderStatus[] = ['PROCESSING', 'PRINTING', 'SHIPPED', 'DELIVERED'];

/**
 * Hands paid orders to production and, where the simulator stands in for the print
 * facility (always for sandbox orders), moves them through PROCESSING -> PRINTING ->
 * SHIPPED (with tracking) -> DELIVERED on a schedule.
 */
export class ProductionService {
  readonly #orders: OrdersService;
  readonly #accounts: AccountsService;
  readonly #livePartner: ProductionPartner;
  readonly #logger: Logger;
  readonly #stepMs: number;
  readonly #handoffs: Queue<{ orderId: string }>;
  readonly #steps: Queue<{ orderId: string; status: OrderStatus }>;
  readonly #simulator: ProductionPartner;

  constructor(deps: { queue: JobQueue; orders: OrdersService; accounts: AccountsService; logger: Logger; simulate: boolean; stepMs: number; livePartner?: ProductionPartner }) {
    this.#orders = deps.orders;
    this.#accounts = deps.accounts;
    this.#logger = deps.logger;
    this.#stepMs = deps.stepMs;
    this.#simulator = { name: 'simulator', submit: async (h) => this.#simulate(h) };
    this.#livePartner = deps.livePartner ?? (deps.simulate ? this.#simulator : manualPartner(deps.logger));
    this.#handoffs = deps.queue.define<{ orderId: string }>('production', {
      concurrency: 10,
      attempts: 20,
      backoff: { type: 'exponential', delayMs: 2000 },
      process: async (job) => this.#handOff(job.data.orderId),
    });
    this.#steps = deps.queue.define<{ orderId: string; status: OrderStatus }>('production-simulator', {
      concurrency: 20,
      attempts: 10,
      backoff: { type: 'exponential', delayMs: 1000 },
      process: async (job) => this.#step(job.data.orderId, job.data.status),
    });
  }

  /** Queues the hand-off of a paid order (idempotent per order). */
  async enqueueHandoff(orderId: string): Promise<void> {
    await this.#handoffs.add({ orderId }, { jobId: `handoff-${orderId}` });
  }

  /** Re-queues paid orders whose hand-off was lost (a crash between commit and enqueue). */
  async sweep(olderThanMs = 60_000): Promise<number> {
    const ids = await this.#orders.ordersAwaitingHandoff(olderThanMs);
    for (const id of ids) await this.enqueueHandoff(id);
    return ids.length;
  }

  async #handOff(orderId: string): Promise<void> {
    const loaded = await this.#orders.loadForHandoff(orderId);
    if (!loaded || loaded.order.status !== 'PAID' || loaded.order.handed_off_at) return;
    const { order, lines } = loaded;
    const reseller = await this.#accounts.resellerRow(order.reseller_id);
    const handoff: ProductionHandoff = {
      orderId: order.id,
      testMode: order.mode === 'test',
      sender: { name: reseller.name, email: reseller.email, phone: reseller.phone },
      recipient: order.recipient,
      carrierContact: {
        email: order.recipient.email ?? reseller.email,
        phone: order.recipient.phone ?? reseller.phone,
      },
      lines: lines.map((l) => ({ line: l.line, productId: l.product_id, quantity: l.quantity, options: l.options, derivedOptions: l.derived_options, fileUrl: l.file_url ?? '' })),
    };
    const partner = order.mode === 'test' ? this.#simulator : this.#livePartner;
    const { reference } = await partner.submit(handoff);
    await this.#orders.markHandedOff(order.id, partner.name, reference);
  }

  async #simulate(handoff: ProductionHandoff): Promise<{ reference: string }> {
    await this.#steps.add({ orderId: handoff.orderId, status: 'PROCESSING' }, { jobId: `sim-${handoff.orderId}-PROCESSING`, delayMs: this.#stepMs });
    return { reference: `sim_${handoff.orderId}` };
  }

  async #step(orderId: string, status: OrderStatus): Promise<void> {
    try {
      const tracking = status === 'SHIPPED' ? await this.#trackingFor(orderId) : undefined;
      await this.#orders.reportProduction(orderId, status, tracking);
    } catch (err) {
      // A cancelled order, or a step reported by hand in between: the simulation stops here.
      if (err instanceof ApiError && (err.status === 409 || err.status === 404)) {
        this.#logger.info('production simulation stopped', { orderId, status, reason: err.message });
        return;
      }
      throw err;
    }
    const next = STEPS[STEPS.indexOf(status) + 1];
    if (next) await this.#steps.add({ orderId, status: next }, { jobId: `sim-${orderId}-${next}`, delayMs: this.#stepMs });
  }

  async #trackingFor(orderId: string): Promise<Tracking> {
    const loaded = await this.#orders.loadForHandoff(orderId);
    const recipient = loaded?.order.recipient;
    const number = `3S${randomBytes(6).toString('hex').toUpperCase()}`;
    const postal = (recipient?.postalCode ?? '').replace(/\s+/g, '');
    return { carrier: 'PostNL', trackingNumber: number, trackingUrl: `https://jouw.postnl.nl/track-and-trace/${number}-${recipient?.country ?? 'NL'}-${postal}` };
  }
}

/** With the simulator off, live orders wait for the print facility to report through the back-office. */
function manualPartner(logger: Logger): ProductionPartner {
  return {
    name: 'manual',
    async submit(handoff) {
      logger.info('order handed to production; progress is reported through the back-office', { orderId: handoff.orderId, lines: handoff.lines.length });
      return { reference: `manual_${handoff.orderId}` };
    },
  };
}
