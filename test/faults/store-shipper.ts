import { randomBytes } from 'node:crypto';
import { query } from './guarantees.ts';
import { sleep } from './order-load.ts';

/** A placed store order the shipper chose to ship. */
export interface ChosenShipment {
  orderId: string;
  storeId: string;
  externalOrderId: string;
  status: string;
}

const PER_TICK = 8;

/**
 * The print facility for the store scenarios: through the back-office
 * (`POST /admin/v1/orders/{id}/production`) it moves about half of the placed store orders
 * (those whose platform id ends in an even digit) to PROCESSING and then to SHIPPED with
 * tracking, so that their tracking is pushed back to the platform. It reads where each order
 * stands from the database every tick and takes one step; a step refused or lost in a fault
 * is taken again on a later tick.
 */
export class StoreShipper {
  readonly chosen = new Map<string, ChosenShipment>();
  readonly #databaseUrl: string;
  readonly #storeIds: () => string[];
  readonly #admin: (method: string, path: string, body?: unknown) => Promise<unknown>;
  #stopped = false;
  #ticks = 0;
  #loop: Promise<void> | undefined;

  constructor(deps: {
    databaseUrl: string;
    storeIds: () => string[];
    admin: (method: string, path: string, body?: unknown) => Promise<unknown>;
  }) {
    this.#databaseUrl = deps.databaseUrl;
    this.#storeIds = deps.storeIds;
    this.#admin = deps.admin;
  }

  start(): void {
    this.#loop = (async () => {
      while (!this.#stopped) {
        await this.#tick().then(
          () => void this.#ticks++,
          () => undefined,
        );
        await sleep(500);
      }
    })();
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    await this.#loop;
  }

  /** Ticks that read the database (a chosen order is known after the first tick that follows its placement). */
  ticks(): number {
    return this.#ticks;
  }

  /** Chosen orders not shipped yet (as last read). */
  unshipped(): ChosenShipment[] {
    return [...this.chosen.values()].filter((c) => c.status !== 'SHIPPED');
  }

  async #tick(): Promise<void> {
    const rows = await query<{ id: string; store_id: string; external_order_id: string; status: string }>(
      this.#databaseUrl,
      `select id, store_id, external_order_id, status from orders where store_id = any($1) and state = 'SUBMITTED'`,
      [this.#storeIds()],
    );
    for (const r of rows) {
      const known = this.chosen.get(r.id);
      if (known) known.status = r.status;
      else if (/[02468]$/.test(r.external_order_id))
        this.chosen.set(r.id, {
          orderId: r.id,
          storeId: r.store_id,
          externalOrderId: r.external_order_id,
          status: r.status,
        });
    }
    const steps = this.unshipped().slice(0, PER_TICK);
    for (const c of steps) {
      const number = `3SFLT${randomBytes(5).toString('hex').toUpperCase()}`;
      const body =
        c.status === 'PAID'
          ? { status: 'PROCESSING' }
          : {
              status: 'SHIPPED',
              tracking: {
                carrier: 'PostNL',
                trackingNumber: number,
                trackingUrl: `https://jouw.postnl.nl/track-and-trace/${number}-DE-10119`,
              },
            };
      await this.#admin('POST', `/orders/${c.orderId}/production`, body).catch(() => undefined);
    }
  }
}
