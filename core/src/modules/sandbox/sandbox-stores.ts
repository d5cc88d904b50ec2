import { listEnvelope, resolvePage, type CursorCodec, type ListEnvelope } from '../../kernel/pagination.ts';
import type { Tenant } from '../../kernel/tenant.ts';
import { rejected, wrongState } from '../../kernel/refusal.ts';
import type { StoreRow } from '../stores/stores-service.ts';
import type { SandboxPlatform } from './sandbox-platform.ts';
import {
  DEFAULT_RECIPIENT,
  sandboxListingView,
  sandboxOrderView,
  shipTo,
  type RecipientInput,
} from './sandbox-views.ts';

/** The platform of sandbox stores (the sandbox connector's). */
export const SANDBOX_PLATFORM = 'SANDBOX';

export interface SandboxOrderInput {
  lines: Array<{
    sku?: string | undefined;
    quantity: number;
    title?: string | undefined;
    externalProductId?: string | undefined;
  }>;
  recipient?: RecipientInput | undefined;
  paid: boolean;
}

/**
 * What a merchant does in a sandbox store (the reseller API's `/stores/{id}/sandbox-*`): make
 * store orders and listings, pay, look at what the store holds. Each call is for one of the
 * caller's connected sandbox stores (another reseller's or mode's store is not found).
 */
export class SandboxStores {
  readonly #deps: {
    platform: SandboxPlatform;
    cursors: CursorCodec;
    storeRow: (tenant: Tenant, id: string) => Promise<StoreRow>;
  };

  constructor(deps: {
    platform: SandboxPlatform;
    cursors: CursorCodec;
    storeRow: (tenant: Tenant, id: string) => Promise<StoreRow>;
  }) {
    this.#deps = deps;
  }

  async createOrder(tenant: Tenant, storeId: string, input: SandboxOrderInput) {
    const shopId = await this.#shopOf(tenant, storeId, { connected: true });
    return sandboxOrderView(
      await this.#deps.platform.createOrder(shopId, {
        lines: input.lines,
        paid: input.paid,
        shipTo: shipTo(input.recipient ?? DEFAULT_RECIPIENT),
      }),
    );
  }

  async payOrder(tenant: Tenant, storeId: string, externalOrderId: string) {
    const shopId = await this.#shopOf(tenant, storeId, { connected: true });
    return sandboxOrderView(await this.#deps.platform.payOrder(shopId, externalOrderId));
  }

  async getOrder(tenant: Tenant, storeId: string, externalOrderId: string) {
    return sandboxOrderView(await this.#deps.platform.order(await this.#shopOf(tenant, storeId), externalOrderId));
  }

  /** The store's orders, newest first, in cursor pages. */
  async listOrders(
    tenant: Tenant,
    storeId: string,
    query: { limit?: number | undefined; cursor?: string | undefined },
  ): Promise<ListEnvelope<ReturnType<typeof sandboxOrderView>>> {
    const shopId = await this.#shopOf(tenant, storeId);
    const { cursors, platform } = this.#deps;
    const page = resolvePage(cursors, 'sandbox-orders', query);
    const before = page.after ? { at: new Date(String(page.after[0])), id: String(page.after[1]) } : undefined;
    const rows = await platform.latestOrders(shopId, before, page.limit + 1);
    return listEnvelope(
      cursors,
      'sandbox-orders',
      page,
      rows,
      (r) => [r.created_at.toISOString(), r.id],
      sandboxOrderView,
    );
  }

  async createListing(tenant: Tenant, storeId: string, input: { sku?: string | undefined; title: string }) {
    const shopId = await this.#shopOf(tenant, storeId, { connected: true });
    return sandboxListingView(
      await this.#deps.platform.createProduct(shopId, {
        sku: input.sku ?? null,
        title: input.title,
        description: null,
        price_cents: null,
        currency: null,
        status: 'active',
      }),
    );
  }

  /** The store's listings (not archived), in the order they were made, in cursor pages. */
  async listListings(
    tenant: Tenant,
    storeId: string,
    query: { limit?: number | undefined; cursor?: string | undefined },
  ): Promise<ListEnvelope<ReturnType<typeof sandboxListingView>>> {
    const shopId = await this.#shopOf(tenant, storeId);
    const { cursors, platform } = this.#deps;
    const page = resolvePage(cursors, 'sandbox-listings', query);
    const rows = await platform.listings(shopId, page.after ? String(page.after[0]) : undefined, page.limit + 1);
    return listEnvelope(cursors, 'sandbox-listings', page, rows, (r) => [r.id], sandboxListingView);
  }

  /**
   * The sandbox shop of the caller's store; a store of another platform is refused, and a disconnected one where the
   * call changes something.
   */
  async #shopOf(tenant: Tenant, storeId: string, opts: { connected?: boolean } = {}): Promise<string> {
    const store = await this.#deps.storeRow(tenant, storeId);
    if (store.platform !== SANDBOX_PLATFORM) {
      throw rejected(
        'unsupported_platform',
        `Store ${storeId} is a ${store.platform} store: sandbox orders and listings are made in sandbox stores only (POST /stores {"platform": "SANDBOX"} with a test key).`,
      );
    }
    if (opts.connected && store.status !== 'connected')
      throw wrongState('store_disconnected', `Store ${storeId} is disconnected.`);
    return store.external_id;
  }
}
