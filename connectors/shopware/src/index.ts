import { ConnectorError, defineConnector, type ConnectorContext, type StoreConnection } from '@print-api/connector-kit';
import { connectSchema, credentialsSchema, STOREFRONT_TYPE_ID, type ShopwareCredentials } from './config.ts';
import { listShopwareListings } from './listings.ts';
import { pollOrders } from './order-polling.ts';
import {
  getShopwareProduct,
  publishShopwareProduct,
  salesChannelOf,
  unpublishShopwareProduct,
  updateShopwareProduct,
} from './publishing.ts';
import { pushShopwareShipment } from './shipment-push.ts';
import { issueToken, ShopwareClient, tokenDue } from './shopware-client.ts';

const client = (ctx: ConnectorContext, store: StoreConnection<ShopwareCredentials>) =>
  new ShopwareClient(ctx.http, store.credentials, ctx.clock);

/**
 * Shopware 6: an integration's access key and secret (Settings > System > Integrations) pasted into `POST /stores`,
 * exchanged for 10-minute Admin API tokens (client credentials, renewed before they expire); orders polled with
 * `POST /api/search/order`; tracking added to the order's delivery, which is then shipped; listings and publishing
 * through the product entity.
 */
export const shopwareConnector = defineConnector<ShopwareCredentials>({
  manifest: {
    platform: 'SHOPWARE',
    displayName: 'Shopware',
    // No settings: every call goes to the merchant's own shop, with the integration's keys.
    connectSchema,
    examples: {
      connect: {
        shopUrl: 'https://www.tulip-prints.example.de',
        accessKeyId: 'SWIAUMZKCLRQWGJJVXDDEXBOSA',
        secretAccessKey: 'Q1FUbW9qV2hrd1JIc3FjZ0RYRGNyMUJJSVVvRG5uQW5OZVZZVHY',
      },
    },
    credentialsSchema,
    capabilities: { webhooks: false, polling: true, fulfilment: true, oauth: false, publishing: true },
    // Self-hosted shops, some on small servers: stay gentle.
    rateLimit: { max: 5, durationMs: 1000 },
    pollIntervalMs: 2 * 60_000,
  },

  async connect(ctx, input) {
    const { shopUrl, accessKeyId, secretAccessKey, salesChannelId } = connectSchema.parse(input);
    const keys = { shopUrl, accessKeyId, secretAccessKey, salesChannelId: salesChannelId ?? '' };
    const credentials = await issueToken(ctx.http, keys, ctx.clock(), { connected: false });
    const api = new ShopwareClient(ctx.http, credentials, ctx.clock);
    const channels = await api.search(
      'sales-channel',
      salesChannelId
        ? { ids: [salesChannelId] }
        : {
            limit: 1,
            filter: [{ type: 'equals', field: 'typeId', value: STOREFRONT_TYPE_ID }],
            sort: [{ field: 'createdAt', order: 'ASC' }],
          },
      'searchSalesChannels',
    );
    const channel = channels[0] as { id?: string; name?: string | null } | undefined;
    if (!channel?.id)
      throw new ConnectorError(
        'invalid_payload',
        salesChannelId
          ? `The shop has no sales channel ${salesChannelId}.`
          : 'The shop has no storefront sales channel: create one, or give the salesChannelId to publish to.',
      );
    return {
      externalId: shopUrl,
      name: channel.name?.trim() || new URL(shopUrl).host,
      credentials: { ...api.credentials, salesChannelId: channel.id },
    };
  },

  credentialsDue: (store, now) => tokenDue(store.credentials, now),

  async refreshCredentials(ctx, store) {
    if (!tokenDue(store.credentials, ctx.clock())) return null;
    return issueToken(ctx.http, store.credentials, ctx.clock(), { connected: true });
  },

  verifyWebhook: () => ({ ok: false, reason: 'Shopware integrations send no webhooks: orders are polled' }),

  async parseWebhook() {
    return { kind: 'ignored', reason: 'Shopware integrations send no webhooks' };
  },

  async listOrders(ctx, store, cursor) {
    return pollOrders(client(ctx, store), cursor, ctx.clock());
  },

  async listListings(ctx, store, cursor) {
    return listShopwareListings(client(ctx, store), cursor);
  },

  async publishListing(ctx, store, draft) {
    return publishShopwareProduct(client(ctx, store), store.credentials.salesChannelId, draft);
  },

  async updateListing(ctx, store, ref, changes) {
    return updateShopwareProduct(client(ctx, store), store.credentials.salesChannelId, ref, changes);
  },

  async unpublishListing(ctx, store, ref) {
    await unpublishShopwareProduct(client(ctx, store), ref);
  },

  async getListing(ctx, store, ref) {
    return getShopwareProduct(client(ctx, store), ref);
  },

  async storeCurrency(ctx, store) {
    return (await salesChannelOf(client(ctx, store), store.credentials.salesChannelId)).currency.isoCode.toUpperCase();
  },

  async storeCountry(ctx, store) {
    const iso = (await salesChannelOf(client(ctx, store), store.credentials.salesChannelId)).country?.iso;
    return iso && /^[A-Za-z]{2}$/.test(iso) ? iso.toUpperCase() : null;
  },

  async pushShipment(ctx, store, shipment) {
    await pushShopwareShipment(client(ctx, store), shipment, ctx.logger);
  },
});
