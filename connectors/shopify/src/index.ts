import { ConnectorError, defineConnector, type ConnectorContext, type StoreConnection } from '@print-api/connector-kit';
import { shopifyShopLocale } from './shop-locale.ts';
import {
  connectSchema,
  credentialsSchema,
  installInputSchema,
  missingScopes,
  PUBLISHING_SCOPES,
  settingsSchema,
  shopOrigin,
  type ShopifyCredentials,
  type ShopifySettings,
} from './config.ts';
import { connectCustomApp } from './connect.ts';
import { beginInstall, completeInstall, refreshIfDue } from './install.ts';
import { listShopifyListings } from './listings.ts';
import { FETCH_BATCH, fetchOrdersById, pollOrders } from './order-polling.ts';
import { publishShopifyListing, unpublishShopifyListing, updateShopifyListing } from './publishing.ts';
import { pushShopifyShipment } from './shipment-push.ts';
import { ShopifyClient } from './shopify-client.ts';
import { webhookContent } from './webhook-content.ts';
import { registerStoreWebhooks } from './webhook-registration.ts';
import { verifyShopifyWebhook } from './webhook-verifier.ts';

function clientFor(ctx: ConnectorContext<ShopifySettings>, store: StoreConnection<ShopifyCredentials>): ShopifyClient {
  return new ShopifyClient({
    http: ctx.http,
    shop: store.credentials.shop,
    origin: shopOrigin(ctx.settings, store.credentials.shop),
    accessToken: store.credentials.accessToken,
    logger: ctx.logger,
  });
}

/** A client for publishing, once the token is known to carry its scopes (a custom app may not have granted them). */
function publishingClient(
  ctx: ConnectorContext<ShopifySettings>,
  store: StoreConnection<ShopifyCredentials>,
): ShopifyClient {
  const missing = missingScopes(store.credentials.scope, PUBLISHING_SCOPES);
  if (missing.length > 0)
    throw new ConnectorError(
      'auth',
      `Publishing to ${store.credentials.shop} needs the access scopes ${missing.join(', ')}: grant them to the app (reinstall it, or add them to the custom app) and try again.`,
    );
  return clientFor(ctx, store);
}

/**
 * Shopify: installed through OAuth (`@shopify/shopify-api`, expiring offline tokens refreshed
 * before they expire) or connected as a merchant's custom app (`POST /stores` with the Admin
 * API access token); `orders/*` webhooks verified with the library and deduplicated by event
 * id; GraphQL polling as the safety net; tracking pushed back with `fulfillmentCreate`;
 * `app/uninstalled` and the compliance topics honoured; products created (`productSet`),
 * published to the Online Store, changed and archived (publishing).
 */
export const shopifyConnector = defineConnector<ShopifyCredentials, ShopifySettings>({
  manifest: {
    platform: 'SHOPIFY',
    displayName: 'Shopify',
    settingsSchema,
    connectSchema,
    examples: {
      connect: {
        shop: 'tulip-prints.myshopify.com',
        accessToken: 'shpat_0123456789abcdef0123456789abcdef',
        apiSecretKey: '0123456789abcdef0123456789abcdef',
      },
    },
    credentialsSchema,
    capabilities: { webhooks: true, polling: true, fulfilment: true, oauth: true, publishing: true },
    // Per store, GraphQL allows 100 cost points per second (Standard plan); a job costs 0-2
    // calls of ~10-80 points. Bursts beyond are answered by the client waiting on throttleStatus.
    rateLimit: { max: 10, durationMs: 1000 },
    // One GraphQL nodes query per 50 orders.
    fetchOrdersMax: FETCH_BATCH,
    pollIntervalMs: 5 * 60_000,
  },

  async connect(ctx, input) {
    return connectCustomApp(ctx, connectSchema.parse(input));
  },

  install: {
    inputSchema: installInputSchema,
    // Our public app's key and secret; merchants' custom apps connect without them.
    requiresSettings: ['apiKey', 'apiSecret'],
    begin: (ctx, { query, callbackUrl }) => beginInstall(ctx, { query, callbackUrl }),
    callback: (ctx, { rawQuery, headers, callbackUrl }) => completeInstall(ctx, { rawQuery, headers, callbackUrl }),
  },

  refreshCredentials: (ctx, store) => refreshIfDue(ctx, store.credentials),

  async registerWebhooks(ctx, store, callbackUrl) {
    if (store.credentials.kind === 'custom' && !store.webhookSecret) {
      ctx.logger.info('custom app connected without its API secret key: the store is polled, not subscribed', {
        shop: store.externalId,
      });
      return {};
    }
    await registerStoreWebhooks(clientFor(ctx, store), callbackUrl, ctx.logger);
    return {};
  },

  identifyStore: (req) => req.headers['x-shopify-shop-domain']?.toLowerCase(),

  // Our app's deliveries are signed with its client secret; a custom app's with its own API secret key.
  verifyWebhook: (req, secrets) =>
    verifyShopifyWebhook(req, [secrets.storeSecret, secrets.settings.apiSecret], new Date()),

  async parseWebhook(ctx, store, req) {
    return webhookContent(req, store.externalId, ctx.logger);
  },

  async listOrders(ctx, store, cursor) {
    return pollOrders(clientFor(ctx, store), cursor, ctx.clock());
  },

  async fetchOrders(ctx, store, externalOrderIds) {
    return fetchOrdersById(clientFor(ctx, store), externalOrderIds);
  },

  async listListings(ctx, store, cursor) {
    return listShopifyListings(clientFor(ctx, store), cursor);
  },

  async publishListing(ctx, store, draft) {
    return publishShopifyListing(publishingClient(ctx, store), draft);
  },

  async updateListing(ctx, store, ref, changes) {
    return updateShopifyListing(publishingClient(ctx, store), ref, changes);
  },

  async unpublishListing(ctx, store, ref) {
    await unpublishShopifyListing(publishingClient(ctx, store), ref);
  },

  // With the shop's own grant, not the publishing client's: a store connected without the publishing scopes learns them.
  async storeCurrency(ctx, store) {
    return (await shopifyShopLocale(clientFor(ctx, store))).currency;
  },

  async storeCountry(ctx, store) {
    return (await shopifyShopLocale(clientFor(ctx, store))).country;
  },

  async pushShipment(ctx, store, shipment) {
    await pushShopifyShipment(clientFor(ctx, store), shipment, ctx.logger);
  },
});
