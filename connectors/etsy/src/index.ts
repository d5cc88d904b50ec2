import { ConnectorError, defineConnector, type ConnectorContext, type StoreConnection } from '@print-api/connector-kit';
import { z } from 'zod';
import {
  connectSchema,
  credentialsSchema,
  LISTINGS_SCOPE,
  PAGE_SIZE,
  PUBLISHING_SCOPE,
  settingsSchema,
  type EtsyCredentials,
  type EtsySettings,
} from './config.ts';
import { EtsyClient } from './etsy-client.ts';
import { LISTINGS_NOT_GRANTED, listEtsyListings } from './listings.ts';
import { completeInstall, connectWithRefreshToken, consentUrl, refreshDue, refreshIfDue } from './install.ts';
import { fetchReceipts, pollReceipts } from './order-polling.ts';
import {
  etsyShopCountry,
  etsyShopCurrency,
  getEtsyListing,
  publishEtsyListing,
  unpublishEtsyListing,
  updateEtsyListing,
} from './publishing.ts';
import { pushTracking } from './shipment-push.ts';
import { identifyShop, webhookContent } from './webhook-content.ts';
import { verifyEtsyWebhook } from './webhook-verifier.ts';

export { etsyCarrierName } from './shipment-push.ts';
export { codeChallenge, codeVerifier, etsyState } from './install.ts';
export { toStoreOrder, parseReceipt, ADDRESS_WITHHELD } from './order-mapper.ts';
export { parseResourceUrl } from './webhook-content.ts';
export { LISTINGS_NOT_GRANTED } from './listings.ts';
export type { EtsyCredentials, EtsySettings } from './config.ts';

function clientFor(ctx: ConnectorContext<EtsySettings>, store: StoreConnection<EtsyCredentials>): EtsyClient {
  return new EtsyClient({
    http: ctx.http,
    settings: ctx.settings,
    accessToken: store.credentials.accessToken,
    logger: ctx.logger,
  });
}

/**
 * A client for publishing, once the grant is known to carry listings_w (shops connected before publishing did not ask
 * for it).
 */
function publishingClient(ctx: ConnectorContext<EtsySettings>, store: StoreConnection<EtsyCredentials>): EtsyClient {
  if (!store.credentials.scopes?.includes(PUBLISHING_SCOPE)) {
    throw new ConnectorError(
      'auth',
      `Etsy does not let us write this shop's listings: the shop was connected without the ${PUBLISHING_SCOPE} permission. Reconnect it with a new Etsy install link and approve on Etsy; the store keeps its orders and history.`,
    );
  }
  return clientFor(ctx, store);
}

/**
 * Etsy (Open API v3): shops installed through OAuth 2.0 with PKCE (S256), access tokens renewed
 * hourly with the rotating refresh token; the app-level `order.paid` webhook (Standard
 * Webhooks signature, thin payload: the receipt is fetched) routed by `shop_id`; receipts
 * polled with an overlap window as the safety net; tracking pushed back form-encoded; active
 * listings with their inventory SKUs; draft listings created with the SKU and price on their
 * inventory, changed and deactivated (publishing). Every call carries `x-api-key: <keystring>:<shared secret>`.
 */
export const etsyConnector = defineConnector<EtsyCredentials, EtsySettings>({
  manifest: {
    platform: 'ETSY',
    displayName: 'Etsy',
    settingsSchema,
    connectSchema,
    examples: {
      connect: { refreshToken: '12345678.JNGIJtvLmwfDMhlYoOJl8aLR1BWottyHC6yhNcg0SUEGwbH5Ij7FJd1iOoDXUD5Dd2iLy8azDV' },
    },
    credentialsSchema,
    capabilities: { webhooks: true, polling: true, fulfilment: true, oauth: true, publishing: true },
    // Etsy's limits are per app (every shop shares them): 10 calls a second by default (more
    // when Etsy grants it). A shop takes at most that; Etsy's x-limit-*/x-remaining-* headers
    // and its 429s are honoured on top (etsy-client.ts).
    rateLimit: { max: 10, durationMs: 1000 },
    // A page of the shop's 100 most recently changed receipts answers a batch of thin order.paid (fetchReceipts).
    fetchOrdersMax: PAGE_SIZE,
    pollIntervalMs: 10 * 60_000,
  },

  async connect(ctx, input) {
    return connectWithRefreshToken(ctx, connectSchema.parse(input).refreshToken);
  },

  install: {
    // Nothing to give besides `returnUrl`: the shop is the one of the Etsy user who consents.
    inputSchema: z.strictObject({}),
    async begin(ctx, { state, callbackUrl }) {
      return { redirectUrl: consentUrl(ctx.settings, { state, callbackUrl }) };
    },
    async callback(ctx, { query, state, callbackUrl }) {
      return completeInstall(ctx, { query, state, callbackUrl });
    },
  },

  refreshCredentials: (ctx, store) => refreshIfDue(ctx, store.credentials),
  credentialsDue: (store, now) => refreshDue(store.credentials, now),

  // Subscriptions are per app, made once in Etsy's webhook portal (README): nothing per shop.
  identifyStore: identifyShop,

  verifyWebhook: (req, secrets) => verifyEtsyWebhook(req, secrets.settings, new Date()),

  async parseWebhook(ctx, store, req) {
    return webhookContent(req, store.externalId, (message, meta) => ctx.logger.warn(message, meta));
  },

  async fetchOrders(ctx, store, externalOrderIds) {
    return fetchReceipts(clientFor(ctx, store), store.credentials.shopId, externalOrderIds);
  },

  async listOrders(ctx, store, cursor) {
    return pollReceipts(clientFor(ctx, store), store.credentials.shopId, cursor, ctx.clock());
  },

  async listListings(ctx, store, cursor) {
    return listEtsyListings(clientFor(ctx, store), store.credentials.shopId, cursor);
  },

  async publishListing(ctx, store, draft) {
    return publishEtsyListing(publishingClient(ctx, store), ctx.http, ctx.settings, store.credentials.shopId, draft);
  },

  async updateListing(ctx, store, ref, changes) {
    return updateEtsyListing(publishingClient(ctx, store), store.credentials.shopId, ref, changes);
  },

  async unpublishListing(ctx, store, ref) {
    await unpublishEtsyListing(publishingClient(ctx, store), store.credentials.shopId, ref);
  },

  async getListing(ctx, store, ref) {
    return getEtsyListing(clientFor(ctx, store), ref);
  },

  async storeCurrency(ctx, store) {
    return etsyShopCurrency(clientFor(ctx, store), store.credentials.shopId);
  },

  async storeCountry(ctx, store) {
    return etsyShopCountry(clientFor(ctx, store), store.credentials.shopId);
  },

  async pushShipment(ctx, store, shipment) {
    await pushTracking(clientFor(ctx, store), store.credentials.shopId, shipment);
  },

  // A shop connected before the install asked for listings_r (no scopes recorded), or with a token without it.
  storeNotices: (store) => (store.credentials.scopes?.includes(LISTINGS_SCOPE) ? [] : [`${LISTINGS_NOT_GRANTED}.`]),
});
