import { randomBytes } from 'node:crypto';
import { Refusal } from '../../kernel/refusal.ts';
import type { Logger } from '../../infra/logger.ts';
import { JobBatcher } from '../../infra/queue/job-batcher.ts';
import type { JobQueue, Queue } from '../../infra/queue/job-queue.ts';
import type { AccountsService } from '../accounts/accounts-service.ts';
import type { OrderStatus } from '../orders/order-states.ts';
import type { OrdersService } from '../orders/orders-service.ts';
import type { Tracking } from '../orders/orders-tables.ts';
import type { ProductionHandoff, ProductionPartner } from './production-partner.ts';

const STEPS: OrderStatus[] = ['PROCESSING', 'PRINTING', 'SHIPPED', 'DELIVERED'];
/** Refusals that end a simulated order's steps: the order is gone, or moved on (cancelled, reported by hand). */
const SIMULATION_STOPS = new Set(['not_found', 'illegal_transition']);

/** A hand-off job: the paid orders of one batch (`orderId`: one order, as jobs queued before batches carried it). */
type HandoffJob = { orderIds: string[] } | { orderId: string };

/**
 * Paid orders close together are handed off by one job: how long the first waits for others, and the most a job takes.
 */
const HANDOFF_WINDOW_MS = 20;
const HANDOFF_BATCH = 100;

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
  readonly #handoffs: Queue<HandoffJob>;
  readonly #batcher: JobBatcher<string, HandoffJob>;
  readonly #steps: Queue<{ orderId: string; status: OrderStatus }>;
  readonly #simulator: ProductionPartner;

  constructor(deps: {
    queue: JobQueue;
    orders: OrdersService;
    accounts: AccountsService;
    logger: Logger;
    simulate: boolean;
    stepMs: number;
    livePartner?: ProductionPartner;
  }) {
    this.#orders = deps.orders;
    this.#accounts = deps.accounts;
    this.#logger = deps.logger;
    this.#stepMs = deps.stepMs;
    this.#simulator = { name: 'simulator', submit: async (h) => this.#simulate(h) };
    this.#livePartner = deps.livePartner ?? (deps.simulate ? this.#simulator : manualPartner(deps.logger));
    this.#handoffs = deps.queue.define<HandoffJob>('production', {
      concurrency: 10,
      attempts: 20,
      backoff: { type: 'exponential', delayMs: 2000 },
      process: async (job) => this.#handOff('orderIds' in job.data ? job.data.orderIds : [job.data.orderId]),
    });
    this.#batcher = new JobBatcher(this.#handoffs, {
      windowMs: HANDOFF_WINDOW_MS,
      max: HANDOFF_BATCH,
      toJob: (orderIds) => ({ data: { orderIds }, options: { jobId: `handoff-${orderIds[0]}` } }),
      onError: (err, orderIds) =>
        this.#logger.warn('hand-off not queued; the sweeper will retry', {
          orders: orderIds.length,
          error: err.message,
        }),
    });
    this.#steps = deps.queue.define<{ orderId: string; status: OrderStatus }>('production-simulator', {
      concurrency: 20,
      attempts: 10,
      backoff: { type: 'exponential', delayMs: 1000 },
      process: async (job) => this.#step(job.data.orderId, job.data.status),
    });
  }

  /**
   * Queues the hand-off of a paid order, in one job with the others paid within
   * HANDOFF_WINDOW_MS (handing off twice is harmless: an order handed off is skipped). A job
   * lost before it was queued is the sweeper's: the order stays PAID and not handed off.
   */
  enqueueHandoff(orderId: string): void {
    this.#batcher.add(orderId);
  }

  /** Queues the hand-offs still waiting for their batch (at shutdown). */
  async flush(): Promise<void> {
    await this.#batcher.flush();
  }

  /** Re-queues paid orders whose hand-off was lost (a crash between commit and enqueue). */
  async sweep(olderThanMs = 60_000): Promise<number> {
    const ids = await this.#orders.ordersAwaitingHandoff(olderThanMs);
    for (let i = 0; i < ids.length; i += HANDOFF_BATCH) {
      const orderIds = ids.slice(i, i + HANDOFF_BATCH);
      await this.#handoffs.add({ orderIds }, { jobId: `handoff-${orderIds[0]}` });
    }
    return ids.length;
  }

  /**
   * Hands a batch of orders to their partner: read in one query, submitted side by side, and
   * those the partner took marked in one statement. When some submission failed the job fails
   * after the others are marked, so its retry submits only what is still not handed off.
   */
  async #handOff(orderIds: string[]): Promise<void> {
    const due = (await this.#orders.loadManyForHandoff(orderIds)).filter(
      ({ order }) => order.status === 'PAID' && !order.handed_off_at,
    );
    const outcomes = await Promise.allSettled(due.map(async (loaded) => this.#submit(loaded)));
    const taken = outcomes.flatMap((o) => (o.status === 'fulfilled' ? [o.value] : []));
    await this.#orders.markHandedOff(taken);
    const failed = outcomes.flatMap((o, i) =>
      o.status === 'rejected' ? [`${due[i]!.order.id}: ${(o.reason as Error).message}`] : [],
    );
    if (failed.length > 0)
      throw new Error(`${failed.length} of ${due.length} hand-offs failed (${failed.slice(0, 3).join('; ')})`);
  }

  async #submit(
    loaded: NonNullable<Awaited<ReturnType<OrdersService['loadForHandoff']>>>,
  ): Promise<{ id: string; partner: string; reference: string }> {
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
      lines: lines.map((l) => ({
        line: l.line,
        productId: l.product_id,
        quantity: l.quantity,
        options: l.options,
        derivedOptions: l.derived_options,
        fileUrl: l.file_url ?? '',
      })),
    };
    const partner = order.mode === 'test' ? this.#simulator : this.#livePartner;
    const { reference } = await partner.submit(handoff);
    return { id: order.id, partner: partner.name, reference };
  }

  async #simulate(handoff: ProductionHandoff): Promise<{ reference: string }> {
    await this.#steps.add(
      { orderId: handoff.orderId, status: 'PROCESSING' },
      { jobId: `sim-${handoff.orderId}-PROCESSING`, delayMs: this.#stepMs },
    );
    return { reference: `sim_${handoff.orderId}` };
  }

  async #step(orderId: string, status: OrderStatus): Promise<void> {
    try {
      const tracking = status === 'SHIPPED' ? await this.#trackingFor(orderId) : undefined;
      await this.#orders.reportProduction(orderId, status, tracking);
    } catch (err) {
      // A cancelled order, or a step reported by hand in between: the simulation stops here.
      if (err instanceof Refusal && SIMULATION_STOPS.has(err.code)) {
        this.#logger.info('production simulation stopped', { orderId, status, reason: err.message });
        return;
      }
      throw err;
    }
    const next = STEPS[STEPS.indexOf(status) + 1];
    if (next)
      await this.#steps.add({ orderId, status: next }, { jobId: `sim-${orderId}-${next}`, delayMs: this.#stepMs });
  }

  async #trackingFor(orderId: string): Promise<Tracking> {
    const loaded = await this.#orders.loadForHandoff(orderId);
    const recipient = loaded?.order.recipient;
    const number = `3S${randomBytes(6).toString('hex').toUpperCase()}`;
    const postal = (recipient?.postalCode ?? '').replace(/\s+/g, '');
    return {
      carrier: 'PostNL',
      trackingNumber: number,
      trackingUrl: `https://jouw.postnl.nl/track-and-trace/${number}-${recipient?.country ?? 'NL'}-${postal}`,
    };
  }
}

/** With the simulator off, live orders wait for the print facility to report through the back-office. */
function manualPartner(logger: Logger): ProductionPartner {
  return {
    name: 'manual',
    async submit(handoff) {
      logger.info('order handed to production; progress is reported through the back-office', {
        orderId: handoff.orderId,
        lines: handoff.lines.length,
      });
      return { reference: `manual_${handoff.orderId}` };
    },
  };
}
