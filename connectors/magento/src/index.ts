import { defineConnector, type ConnectorContext, type StoreConnection } from '@print-api/connector-kit';
import { z } from 'zod';
import { connectSchema, credentialsSchema, restRoot, type MagentoCredentials } from './config.ts';
import { listMagentoListings } from './listings.ts';
import { MagentoClient, searchQuery } from './magento-client.ts';
import { pollOrders } from './order-polling.ts';
import {
  getMagentoProduct,
  magentoStoreCurrency,
  publishMagentoProduct,
  unpublishMagentoProduct,
  updateMagentoProduct,
} from './publishing.ts';
import { pushMagentoShipment } from './shipment-push.ts';

const client = (ctx: ConnectorContext, store: StoreConnection<MagentoCredentials>) =>
  new MagentoClient(ctx.http, store.credentials);

/**
 * Magento Open Source / Adobe Commerce 2.4: an integration's access token pasted (`POST /stores`), used as a Bearer
 * token on the store's REST API; orders polled with `GET /V1/orders` on `updated_at` (Magento sends no webhooks
 * without an extension); tracking sent back as a shipment of the printed items; products listed and published.
 */
export const magentoConnector = defineConnector<MagentoCredentials>({
  manifest: {
    platform: 'MAGENTO',
    displayName: 'Magento',
    // No settings: every call goes to the merchant's own store, with the store's own token.
    connectSchema,
    examples: {
      connect: { baseUrl: 'https://shop.tulip-prints.example', accessToken: 'k3v9q2m7x1c8b4n6z0p5r2t7y9w3e1a4' },
    },
    credentialsSchema,
    capabilities: { webhooks: false, polling: true, fulfilment: true, oauth: false, publishing: true },
    // Self-hosted shops, often on modest servers: stay gentle.
    rateLimit: { max: 4, durationMs: 1000 },
    pollIntervalMs: 5 * 60_000,
  },

  /**
   * Checks the token where it must work: the store's configuration (Stores), one order and one shipment (Sales), one
   * product (Catalog). A token Magento refuses, or a resource the integration lacks, is 422
   * `store_credentials_rejected` naming it, and nothing is stored.
   */
  async connect(ctx, input) {
    const parsed = connectSchema.parse(input);
    const credentials = { ...restRoot(parsed.baseUrl, parsed.storeCode), accessToken: parsed.accessToken };
    const magento = new MagentoClient(ctx.http, credentials);
    await magentoStoreCurrency(magento, credentials);
    const one = searchQuery({ pageSize: 1, currentPage: 1 });
    for (const [path, operation] of [
      ['/orders', 'searchOrders'],
      ['/shipments', 'searchShipments'],
      ['/products', 'searchProducts'],
    ] as const)
      await magento.json(z.unknown(), { method: 'GET', path, query: one, operation });
    const host = new URL(credentials.baseUrl).host;
    return {
      externalId: `${credentials.baseUrl}${credentials.storeCode ? `/rest/${credentials.storeCode}` : ''}`,
      name: credentials.storeCode ? `${host} (${credentials.storeCode})` : host,
      credentials,
    };
  },

  verifyWebhook: () => ({ ok: false, reason: 'Magento sends no webhooks to us: its orders are polled' }),

  async parseWebhook() {
    return { kind: 'ignored', reason: 'Magento sends no webhooks to us' };
  },

  async listOrders(ctx, store, cursor) {
    return pollOrders(client(ctx, store), cursor, ctx.clock());
  },

  async listListings(ctx, store, cursor) {
    return listMagentoListings(client(ctx, store), cursor);
  },

  async publishListing(ctx, store, draft) {
    return publishMagentoProduct(client(ctx, store), draft);
  },

  async updateListing(ctx, store, ref, changes) {
    const magento = client(ctx, store);
    return updateMagentoProduct(magento, ref, changes, () => magentoStoreCurrency(magento, store.credentials));
  },

  async unpublishListing(ctx, store, ref) {
    await unpublishMagentoProduct(client(ctx, store), ref);
  },

  async getListing(ctx, store, ref) {
    return getMagentoProduct(client(ctx, store), ref);
  },

  async storeCurrency(ctx, store) {
    return magentoStoreCurrency(client(ctx, store), store.credentials);
  },

  /** Magento's REST API says nothing of the store's address (Stores > Configuration > General > Store Information). */
  async storeCountry() {
    return null;
  },

  async pushShipment(ctx, store, shipment) {
    await pushMagentoShipment(client(ctx, store), shipment, ctx.logger);
  },
});
