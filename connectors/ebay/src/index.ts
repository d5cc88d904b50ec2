import { defineConnector, type ConnectorContext, type StoreConnection } from '@print-api/connector-kit';
import { z } from 'zod';
import { accountDeletion } from './account-deletion.ts';
import * as auth from './auth.ts';
import { connectSchema, credentialsSchema, settingsSchema, type EbayCredentials, type EbaySettings } from './config.ts';
import { EbayClient } from './ebay-client.ts';
import { listInventoryItems } from './listings.ts';
import { pollOrders } from './orders.ts';
import { marketplaceOf, publishEbayListing, unpublishEbayListing, updateEbayListing } from './publishing.ts';
import { pushTracking } from './shipment.ts';

export { challengeResponse } from './account-deletion.ts';
export { SCOPES, MARKETPLACES, type EbayCredentials, type EbaySettings } from './config.ts';
export { toStoreOrder } from './orders.ts';

/** The seller's client: a token eBay refuses is renewed once with the refresh token (and the call made again). */
const clientFor = (ctx: ConnectorContext<EbaySettings>, store: StoreConnection<EbayCredentials>) =>
  new EbayClient(
    ctx,
    store.credentials.accessToken,
    async () => (await auth.refreshIfDue(ctx, store.credentials, true))!.accessToken,
  );

const noWebhooks = 'eBay order notifications are not used: orders are polled';

/**
 * eBay (Sell APIs): sellers installed through eBay's consent page (the app's RuName as redirect_uri), 2-hour access
 * tokens renewed with the 18-month refresh token; orders polled from the Fulfillment API by last change; tracking
 * pushed back as a shipping fulfilment; inventory items as listings; publishing through the Inventory API (item, offer,
 * publish) with the seller's business policies and location; and the marketplace account deletion endpoint eBay
 * requires of every app (`/connectors/ebay/account-deletion`).
 */
export const ebayConnector = defineConnector<EbayCredentials, EbaySettings>({
  manifest: {
    platform: 'EBAY',
    displayName: 'eBay',
    settingsSchema,
    connectSchema,
    examples: {
      connect: { refreshToken: 'v^1.1#i^1#p^3#r^1#I^3#f^0#t^Ul4xMF8yOjNBNjRDRTQ1MjU0RkJFQzU3RDBFQTI3N0MxOEE=' },
    },
    credentialsSchema,
    capabilities: { webhooks: false, polling: true, fulfilment: true, oauth: true, publishing: true },
    // eBay's call limits are per app and per day (getOrders: 100,000 a day for the Fulfillment API); a seller takes at
    // most 5 calls a second, and eBay's 429s (Retry-After) are waited out by core's client.
    rateLimit: { max: 5, durationMs: 1000 },
    pollIntervalMs: 10 * 60_000,
  },

  async connect(ctx, input) {
    return auth.connectWithRefreshToken(ctx, connectSchema.parse(input).refreshToken);
  },

  requiresSettings: [],

  install: {
    // Nothing to give besides `returnUrl`: the store is the eBay seller who consents.
    inputSchema: z.strictObject({}),
    requiresSettings: ['ruName'],
    async begin(ctx, { state }) {
      return { redirectUrl: auth.consentUrl(ctx.settings, state) };
    },
    async callback(ctx, { query, state }) {
      return auth.completeInstall(ctx, query, state);
    },
  },

  refreshCredentials: (ctx, store) => auth.refreshIfDue(ctx, store.credentials),
  credentialsDue: (store, now) => auth.refreshDue(store.credentials, now),
  storeNotices: (store, now) => auth.renewalNotices(store.credentials, now),

  verifyWebhook: () => ({ ok: false, reason: noWebhooks }),
  async parseWebhook() {
    return { kind: 'ignored', reason: noWebhooks };
  },

  endpoints: { 'account-deletion': { answer: accountDeletion } },

  async listOrders(ctx, store, cursor) {
    return pollOrders(clientFor(ctx, store), cursor, ctx.clock());
  },

  async pushShipment(ctx, store, shipment) {
    await pushTracking(clientFor(ctx, store), shipment, ctx.clock());
  },

  async listListings(ctx, store, cursor) {
    return listInventoryItems(clientFor(ctx, store), cursor);
  },

  async publishListing(ctx, store, draft) {
    return publishEbayListing(clientFor(ctx, store), ctx.settings, store.credentials, draft);
  },

  async updateListing(ctx, store, ref, changes) {
    return updateEbayListing(clientFor(ctx, store), store.credentials, ref, changes);
  },

  async unpublishListing(ctx, store, ref) {
    await unpublishEbayListing(clientFor(ctx, store), store.credentials, ref);
  },

  async storeCurrency(_ctx, store) {
    return marketplaceOf(store.credentials).currency;
  },

  async storeCountry(_ctx, store) {
    return marketplaceOf(store.credentials).country;
  },
});
