import { defineConnector, parseJsonPayload } from '@print-api/connector-kit';
import { connectSchema, credentialsSchema, type WooCredentials } from './config.ts';
import { connectWithKeys } from './connect.ts';
import { authorizeUrl, keyRequestSchema, receiveIssuedKeys } from './install.ts';
import { listWooListings } from './listings.ts';
import { mapWooOrder, toStoreOrder, wooOrderSchema } from './order-mapper.ts';
import { pollOrders, readCursor } from './order-polling.ts';
import {
  getWooProduct,
  publishWooProduct,
  unpublishWooProduct,
  updateWooProduct,
  wooStoreCountry,
  wooStoreCurrency,
} from './publishing.ts';
import { pushWooShipment } from './shipment-push.ts';
import { registerOrderWebhooks, repairNotice, repairWebhooks } from './webhook-registration.ts';
import { verifyWooWebhook } from './webhook-verifier.ts';
import { WooCommerceClient } from './woocommerce-client.ts';

const ORDER_TOPIC = /^order\.(created|updated)$/;
const PRODUCT_TOPIC = /^product\.(created|updated|deleted|restored)$/;

/**
 * WooCommerce: keys pasted (`POST /stores`) or issued by the store's `/wc-auth/v1/authorize`
 * flow, checked against its REST API; `order.created` / `order.updated` webhooks signed with
 * a per-store secret; polling with `modified_after` as the safety net (WooCommerce never
 * retries a webhook and disables it after repeated failures); tracking pushed back as a
 * customer note, a Shipment Tracking item and status `completed`.
 */
export const wooCommerceConnector = defineConnector<WooCredentials>({
  manifest: {
    platform: 'WOOCOMMERCE',
    displayName: 'WooCommerce',
    // No settings: every call goes to the merchant's own store URL (its origin is the store's),
    // and webhooks are signed with a per-store secret.
    connectSchema,
    examples: {
      connect: {
        storeUrl: 'https://tulip-prints.example.com',
        consumerKey: 'ck_0123456789abcdef0123456789abcdef01234567',
        consumerSecret: 'cs_0123456789abcdef0123456789abcdef01234567',
      },
      credentialRequest: {
        storeUrl: 'https://tulip-prints.example.com',
        returnUrl: 'https://reseller.example.com/stores/connected',
      },
    },
    credentialsSchema,
    capabilities: { webhooks: true, polling: true, fulfilment: true, oauth: false, publishing: true },
    // Self-hosted WordPress sites, often on shared hosting: stay gentle.
    rateLimit: { max: 4, durationMs: 1000 },
    // One GET per order.
    fetchOrdersMax: 1,
    pollIntervalMs: 5 * 60_000,
  },

  async connect(ctx, input) {
    return connectWithKeys(ctx.http, connectSchema.parse(input));
  },

  credentialRequest: {
    inputSchema: keyRequestSchema,
    async begin(_ctx, { input, state, callbackUrl, returnUrl }) {
      const { storeUrl } = keyRequestSchema.parse(input);
      return { redirectUrl: authorizeUrl({ storeUrl, state, callbackUrl, returnUrl }) };
    },
    async receive(ctx, { input, state, rawBody }) {
      return receiveIssuedKeys(ctx.http, { storeUrl: keyRequestSchema.parse(input).storeUrl, state, rawBody });
    },
  },

  async registerWebhooks(ctx, store, callbackUrl) {
    const client = new WooCommerceClient({ http: ctx.http, credentials: store.credentials });
    return registerOrderWebhooks(client, {
      callbackUrl,
      appWebhookUrl: ctx.webhookUrl(),
      currentSecret: store.webhookSecret,
      logger: ctx.logger,
    });
  },

  verifyWebhook: (req, secrets) => verifyWooWebhook(req, secrets.storeSecret),

  async parseWebhook(_ctx, _store, req) {
    const topic = req.headers['x-wc-webhook-topic'] ?? '';
    if (PRODUCT_TOPIC.test(topic)) return { kind: 'listings_changed' };
    if (!ORDER_TOPIC.test(topic)) return { kind: 'ignored', reason: `topic ${topic || '(none)'} is not one we act on` };
    return {
      kind: 'orders',
      orders: [toStoreOrder(parseJsonPayload(wooOrderSchema, req.rawBody, `WooCommerce ${topic} delivery`))],
    };
  },

  async fetchOrders(ctx, store, externalOrderIds) {
    const client = new WooCommerceClient({ http: ctx.http, credentials: store.credentials });
    const orders = [];
    for (const id of externalOrderIds) orders.push(mapWooOrder(await client.getOrder(id)));
    return orders;
  },

  async listOrders(ctx, store, cursor) {
    const client = new WooCommerceClient({ http: ctx.http, credentials: store.credentials });
    // The first page of a polling run: the moment to bring back webhooks WooCommerce disabled (or that are gone).
    if (!readCursor(cursor, ctx.clock()).firstPage) return pollOrders(client, cursor, ctx.clock());
    const callbackUrl = store.id ? ctx.webhookUrl(store.id) : undefined;
    const repair = await repairWebhooks(client, {
      appWebhookUrl: ctx.webhookUrl(),
      callbackUrl,
      secret: store.webhookSecret,
      logger: ctx.logger,
    });
    const page = await pollOrders(client, cursor, ctx.clock());
    const notice = repairNotice(repair, ctx.clock());
    return notice ? { ...page, notice } : page;
  },

  async listListings(ctx, store, cursor) {
    return listWooListings(new WooCommerceClient({ http: ctx.http, credentials: store.credentials }), cursor);
  },

  async publishListing(ctx, store, draft) {
    return publishWooProduct(new WooCommerceClient({ http: ctx.http, credentials: store.credentials }), draft);
  },

  async updateListing(ctx, store, ref, changes) {
    const client = new WooCommerceClient({ http: ctx.http, credentials: store.credentials });
    return updateWooProduct(client, ref, changes, () => wooStoreCurrency(client));
  },

  async unpublishListing(ctx, store, ref) {
    await unpublishWooProduct(new WooCommerceClient({ http: ctx.http, credentials: store.credentials }), ref);
  },

  async getListing(ctx, store, ref) {
    return getWooProduct(new WooCommerceClient({ http: ctx.http, credentials: store.credentials }), ref);
  },

  async storeCurrency(ctx, store) {
    return wooStoreCurrency(new WooCommerceClient({ http: ctx.http, credentials: store.credentials }));
  },

  async storeCountry(ctx, store) {
    return wooStoreCountry(new WooCommerceClient({ http: ctx.http, credentials: store.credentials }));
  },

  async pushShipment(ctx, store, shipment) {
    const client = new WooCommerceClient({ http: ctx.http, credentials: store.credentials });
    await pushWooShipment(client, shipment, { now: ctx.clock(), logger: ctx.logger });
  },
});
