import { ConnectorError, defineConnector, type ConnectorContext, type StoreConnection } from '@print-api/connector-kit';
import {
  connectSchema,
  credentialsSchema,
  installInputSchema,
  RATE_LIMIT,
  settingsSchema,
  type WixCredentials,
  type WixSettings,
} from './config.ts';
import { completeInstall, installRedirect } from './install.ts';
import { listWixListings } from './listings.ts';
import { fetchOrdersById, pollOrders } from './order-polling.ts';
import { publishWixListing, unpublishWixListing, updateWixListing } from './publishing.ts';
import { pushWixShipment } from './shipment-push.ts';
import { wixSiteCountry, wixSiteCurrency } from './site.ts';
import { webhookContent } from './webhook-content.ts';
import { peekEnvelope, verifyWixWebhook } from './webhook-verifier.ts';
import { freshestToken, mintToken, tokenUsable, WixClient } from './wix-client.ts';

function clientFor(ctx: ConnectorContext<WixSettings>, store: StoreConnection<WixCredentials>): WixClient {
  return new WixClient({
    http: ctx.http,
    settings: ctx.settings,
    credentials: store.credentials,
    clock: ctx.clock,
    logger: ctx.logger,
  });
}

/**
 * Wix (eCommerce): a site connects by installing our Wix app through the install link (Wix's
 * installer, our callback as the post-install redirect, the site's `instanceId` tied to the
 * reseller by the install state); client-credentials tokens per site, minted again when they
 * expire; app-level webhooks whose bodies are RS256 JWTs (order approved, payment status
 * updated, updated, canceled; app removed); `orders/search` polling as the safety net;
 * tracking pushed back as a fulfillment of our lines; Wix Stores products (Catalog V1 or V3,
 * as the site runs) created, changed and hidden (publishing).
 */
export const wixConnector = defineConnector<WixCredentials, WixSettings>({
  manifest: {
    platform: 'WIX',
    displayName: 'Wix',
    settingsSchema,
    connectSchema,
    examples: { connect: { instanceId: '6f2b5e2a-0000-4000-8000-0000000000aa' } },
    credentialsSchema,
    capabilities: { webhooks: true, polling: true, fulfilment: true, oauth: true, publishing: true },
    // 200 requests a minute per app instance (site).
    rateLimit: { ...RATE_LIMIT },
    // One getOrder call per order.
    fetchOrdersMax: 1,
    pollIntervalMs: 5 * 60_000,
  },

  async connect() {
    // Our app's credentials open every site that installed it: a pasted instance id proves nothing.
    throw new ConnectorError(
      'invalid_payload',
      'A Wix site connects by installing our app: create an install link with POST /stores/install-links {"platform": "WIX"} and send the merchant there.',
    );
  },

  install: {
    inputSchema: installInputSchema,
    async begin(ctx, { state, callbackUrl }) {
      return { redirectUrl: installRedirect(ctx.settings, { state, callbackUrl }) };
    },
    callback: (ctx, { query, state }) => completeInstall(ctx, { query, state }),
  },

  credentialsDue(store, now) {
    const best = freshestToken(store.credentials);
    return !tokenUsable(best, now) || best.accessToken !== store.credentials.accessToken;
  },

  async refreshCredentials(ctx, store) {
    const now = ctx.clock();
    const best = freshestToken(store.credentials);
    if (tokenUsable(best, now)) {
      // A token minted in this process after Wix revoked the stored one: store it.
      if (best.accessToken === store.credentials.accessToken) return null;
      return {
        ...store.credentials,
        accessToken: best.accessToken,
        expiresAt: new Date(best.expiresAtMs).toISOString(),
      };
    }
    const token = await mintToken(ctx.http, ctx.settings, store.credentials.instanceId, now);
    return {
      ...store.credentials,
      accessToken: token.accessToken,
      expiresAt: new Date(token.expiresAtMs).toISOString(),
    };
  },

  identifyStore: (req) => peekEnvelope(req.rawBody)?.instanceId,

  verifyWebhook: (req, secrets) => verifyWixWebhook(req, secrets.settings, new Date()),

  async parseWebhook(_ctx, store, req) {
    return webhookContent(req, store.externalId);
  },

  async fetchOrders(ctx, store, externalOrderIds) {
    return fetchOrdersById(clientFor(ctx, store), externalOrderIds);
  },

  async listOrders(ctx, store, cursor) {
    return pollOrders(clientFor(ctx, store), cursor, ctx.clock());
  },

  async listListings(ctx, store, cursor) {
    return listWixListings(clientFor(ctx, store), cursor);
  },

  async publishListing(ctx, store, draft) {
    return publishWixListing(clientFor(ctx, store), draft);
  },

  async updateListing(ctx, store, ref, changes) {
    return updateWixListing(clientFor(ctx, store), ref, changes);
  },

  async unpublishListing(ctx, store, ref) {
    await unpublishWixListing(clientFor(ctx, store), ref);
  },

  async storeCurrency(ctx, store) {
    return wixSiteCurrency(clientFor(ctx, store));
  },

  async storeCountry(ctx, store) {
    return wixSiteCountry(clientFor(ctx, store));
  },

  async pushShipment(ctx, store, shipment) {
    await pushWixShipment(clientFor(ctx, store), shipment, ctx.logger);
  },
});
