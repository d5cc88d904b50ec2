import { ConnectorError, defineConnector, type ConnectorContext, type StoreConnection } from '@print-api/connector-kit';
import { renewTokens } from './install-tokens.ts';
import {
  API_VERSION,
  connectSchema,
  DETAIL_BATCH,
  credentialsSchema,
  EVENT_TYPES,
  installInputSchema,
  REFRESH_MARGIN_MS,
  settingsSchema,
  type TikTokCredentials,
  type TikTokSettings,
} from './config.ts';
import { beginInstall, completeInstall } from './install.ts';
import { listTikTokListings } from './listings.ts';
import { fetchStoreOrders, pollOrders } from './order-polling.ts';
import { pushTikTokShipment } from './shipment-push.ts';
import { TikTokClient } from './tiktok-client.ts';
import { identifyShop, webhookContent } from './webhook-content.ts';
import { verifyTikTokWebhook } from './webhook-verifier.ts';

type Context = ConnectorContext<TikTokSettings>;

/**
 * Tokens a call renewed after TikTok refused the stored one (a token error mid-call), by shop,
 * until core stores them: the next `refreshCredentials` of that shop hands them over. A cache
 * only: a process that never sees them renews on its own next token error.
 */
const renewedMidCall = new Map<string, TikTokCredentials>();
const RENEWED_KEPT = 10_000;

function clientFor(ctx: Context, store: StoreConnection<TikTokCredentials>): TikTokClient {
  return new TikTokClient({
    http: ctx.http,
    settings: ctx.settings,
    clock: ctx.clock,
    credentials: store.credentials,
    onRenewed: (renewed) => {
      if (renewedMidCall.size >= RENEWED_KEPT) renewedMidCall.delete(renewedMidCall.keys().next().value!);
      renewedMidCall.set(renewed.shopId, renewed);
      ctx.logger.info('TikTok Shop access token renewed after a token error', { shopId: renewed.shopId });
    },
  });
}

/**
 * TikTok Shop (Open API 202309): the seller authorises our service (`service_id` link), the
 * callback exchanges the code for tokens (renewed before they expire, and at once on a token
 * error) and picks the shop and its cipher; every call is signed; orders arrive as thin
 * app-level notifications (type 1, fetched) with polling as the safety net; tracking goes back
 * as a package of the units we printed; deauthorisation disconnects the store.
 */
export const tiktokShopConnector = defineConnector<TikTokCredentials, TikTokSettings>({
  manifest: {
    platform: 'TIKTOK_SHOP',
    displayName: 'TikTok Shop',
    settingsSchema,
    connectSchema,
    examples: { connect: {} },
    credentialsSchema,
    capabilities: { webhooks: true, polling: true, fulfilment: true, oauth: true },
    // Publishing (POST /stores/{id}/listings) is not offered: what the merchant does instead.
    publishingAdvice:
      "Create the product in TikTok Shop Seller Center with your product's SKU as its seller SKU (TikTok Shop reviews every new product), then, if it carries another SKU, map it with POST /stores/{id}/links.",
    // TikTok documents per-API QPS in Partner Center only: 10 calls a second per shop, and throttling answers waited
    // out.
    rateLimit: { max: 10, durationMs: 1000 },
    // Get Order Detail answers up to 50 orders a call.
    fetchOrdersMax: DETAIL_BATCH,
    pollIntervalMs: 5 * 60_000,
  },

  async connect() {
    throw new ConnectorError(
      'invalid_payload',
      'TikTok Shop stores connect through the authorisation link: POST /stores/install-links {"platform": "TIKTOK_SHOP"} and send the seller to its installUrl.',
    );
  },

  install: {
    inputSchema: installInputSchema,
    begin: async (ctx, params) => beginInstall(ctx, params),
    callback: (ctx, { query, state, headers }) => completeInstall(ctx, { query, state, headers }),
  },

  credentialsDue(store, now) {
    if (renewedMidCall.has(store.credentials.shopId)) return true;
    const expiresAt = store.credentials.accessTokenExpiresAt;
    return Boolean(expiresAt) && !(Date.parse(expiresAt!) - now.getTime() > REFRESH_MARGIN_MS);
  },

  async refreshCredentials(ctx, store) {
    const renewed = renewedMidCall.get(store.credentials.shopId);
    if (renewed) {
      renewedMidCall.delete(store.credentials.shopId);
      if (renewed.accessToken !== store.credentials.accessToken) return renewed;
    }
    const expiresAt = store.credentials.accessTokenExpiresAt;
    if (!expiresAt || Date.parse(expiresAt) - ctx.clock().getTime() > REFRESH_MARGIN_MS) return null;
    const fresh = await renewTokens(ctx.http, ctx.settings, store.credentials, ctx.clock());
    ctx.logger.info('TikTok Shop access token renewed before it expires', {
      shopId: fresh.shopId,
      expiresAt: fresh.accessTokenExpiresAt,
    });
    return fresh;
  },

  async registerWebhooks(ctx, store) {
    const client = clientFor(ctx, store);
    for (const eventType of Object.keys(EVENT_TYPES)) {
      await client.call({
        method: 'PUT',
        path: `/event/${API_VERSION}/webhooks`,
        body: { event_type: eventType, address: ctx.webhookUrl() },
        operation: 'updateShopWebhook',
      });
    }
    return {};
  },

  identifyStore: identifyShop,

  verifyWebhook: (req, { settings }) => verifyTikTokWebhook(req, settings, new Date()),

  async parseWebhook(_ctx, _store, req) {
    return webhookContent(req);
  },

  async fetchOrders(ctx, store, externalOrderIds) {
    return fetchStoreOrders(clientFor(ctx, store), externalOrderIds);
  },

  async listOrders(ctx, store, cursor) {
    return pollOrders(clientFor(ctx, store), cursor, ctx.clock());
  },

  async listListings(ctx, store, cursor) {
    return listTikTokListings(clientFor(ctx, store), cursor);
  },

  async pushShipment(ctx, store, shipment) {
    await pushTikTokShipment(clientFor(ctx, store), shipment, ctx.logger);
  },
});

export { signRequest, stringToSign, webhookSignature } from './signing.ts';
