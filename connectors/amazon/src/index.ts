import { defineConnector, type StoreConnection } from '@print-api/connector-kit';
import { describeSeller, refreshAccess, refreshDue, refreshIfDue, SpApi, type AmazonContext } from './amazon-client.ts';
import {
  AUTHORIZATION_DAYS,
  connectSchema,
  credentialsSchema,
  installInputSchema,
  SEARCH_ORDERS_BUDGET,
  settingsSchema,
  type AmazonCredentials,
  type AmazonSettings,
} from './config.ts';
import { beginInstall, completeInstall } from './install.ts';
import { listingsPage } from './listings.ts';
import { isMerchantFulfilled, toStoreOrder } from './order-mapper.ts';
import { getOrder, searchOrdersPage } from './order-polling.ts';
import { confirmShipment } from './shipment-push.ts';

const api = (ctx: AmazonContext, store: StoreConnection<AmazonCredentials>) => new SpApi(ctx, store.credentials);

/**
 * Amazon (Selling Partner API): the seller's consent in Seller Central (or a private app's
 * self-authorisation pasted to `POST /stores`), Login with Amazon tokens (an hour, from the
 * refresh token); orders by polling only (Amazon has no HTTP webhooks) with Orders API
 * v2026-01-01 `searchOrders` under its budget of one call every 3 minutes per seller (burst
 * 20), shared with `POST /stores/{id}/sync`; tracking with v0 `confirmShipment`; listings with
 * the Listings Items API; the yearly renewal of the authorisation shown on the store.
 */
export const amazonConnector = defineConnector<AmazonCredentials, AmazonSettings>({
  manifest: {
    platform: 'AMAZON',
    displayName: 'Amazon',
    settingsSchema,
    connectSchema,
    examples: {
      connect: {
        sellingPartnerId: 'A3TH9S8BH6GOGM',
        refreshToken: 'Atzr|IwEBIExampleRefreshToken0123456789',
        marketplaceIds: 'ATVPDKIKX0DER',
      },
    },
    credentialsSchema,
    capabilities: { webhooks: false, polling: true, fulfilment: true, oauth: true },
    // Publishing (POST /stores/{id}/listings) is not offered: what the merchant does instead.
    publishingAdvice:
      "Create the listing in Amazon Seller Central with your product's SKU as its seller SKU (Amazon matches it to a catalogue item, or asks for one), then, if it carries another SKU, map it with POST /stores/{id}/links.",
    // Every call of a seller: confirmShipment's 2 a second (burst 10) is the tightest of the frequent ones.
    rateLimit: { max: 10, durationMs: 5000 },
    // One getOrder call per order.
    fetchOrdersMax: 1,
    // searchOrders: 0.0056 calls a second (one every 3 minutes), burst 20, per seller.
    pollBudget: SEARCH_ORDERS_BUDGET,
    // Half the sustained budget: the rest refills the burst for syncs and further pages.
    pollIntervalMs: 6 * 60_000,
  },

  // Every Amazon call starts with a Login with Amazon token of our app.
  requiresSettings: ['lwaClientId', 'lwaClientSecret'],

  async connect(ctx, input) {
    const { sellingPartnerId, refreshToken, marketplaceIds } = connectSchema.parse(input);
    const wanted = marketplaceIds ?? ctx.settings.marketplaceIds;
    const credentials = await refreshAccess(ctx, {
      sellingPartnerId,
      refreshToken,
      accessToken: null,
      accessTokenExpiresAt: null,
      marketplaceIds: wanted,
      authorizedAt: ctx.clock().toISOString(),
    });
    const seller = await describeSeller(
      new SpApi(ctx, credentials),
      sellingPartnerId,
      wanted,
      marketplaceIds !== undefined,
    );
    return {
      externalId: sellingPartnerId,
      name: seller.name,
      credentials: { ...credentials, marketplaceIds: seller.marketplaceIds },
    };
  },

  install: {
    inputSchema: installInputSchema,
    // The consent page names the app by its id, and the code is exchanged with the app's LWA credentials.
    requiresSettings: ['appId', 'lwaClientId', 'lwaClientSecret'],
    begin: async (ctx, params) => beginInstall(ctx, params),
    callback: (ctx, params) => completeInstall(ctx, params),
  },

  refreshCredentials: (ctx, store) => refreshIfDue(ctx, store.credentials),
  credentialsDue: (store, now) => refreshDue(store.credentials, now),

  verifyWebhook: () => ({ ok: false, reason: 'Amazon sends no HTTP webhooks: its orders are polled' }),

  async parseWebhook() {
    return { kind: 'ignored', reason: 'Amazon sends no HTTP webhooks' };
  },

  async listOrders(ctx, store, cursor) {
    return searchOrdersPage(ctx, api(ctx, store), store.credentials.marketplaceIds, cursor);
  },

  async fetchOrders(ctx, store, externalOrderIds) {
    const client = api(ctx, store);
    const orders = [];
    for (const id of externalOrderIds) {
      const order = await getOrder(client, id);
      if (isMerchantFulfilled(order)) orders.push(toStoreOrder(order));
    }
    return orders;
  },

  async listListings(ctx, store, cursor) {
    return listingsPage(
      api(ctx, store),
      store.credentials.sellingPartnerId,
      store.credentials.marketplaceIds[0]!,
      cursor,
    );
  },

  async pushShipment(ctx, store, shipment) {
    await confirmShipment(ctx, api(ctx, store), shipment);
  },

  storeNotices(store, now) {
    const renewBy = new Date(Date.parse(store.credentials.authorizedAt) + AUTHORIZATION_DAYS * 24 * 3600_000);
    const day = renewBy.toISOString().slice(0, 10);
    if (renewBy.getTime() <= now.getTime())
      return [
        `Amazon's authorisation of this store expired on ${day} (sellers renew it every ${AUTHORIZATION_DAYS} days): renew it in Seller Central (Manage Your Apps) or connect the store again.`,
      ];
    const days = Math.ceil((renewBy.getTime() - now.getTime()) / (24 * 3600_000));
    return [
      `Amazon asks sellers to renew an app's authorisation every ${AUTHORIZATION_DAYS} days: renew this one in Seller Central (Manage Your Apps) by ${day} (in ${days} days), or orders stop coming.`,
    ];
  },
});
