import { randomBytes } from 'node:crypto';
import { defineConnector, parseJsonPayload, type ConnectorContext } from '@print-api/connector-kit';
import { z } from 'zod';
import {
  connectSchema,
  credentialsSchema,
  settingsSchema,
  type SandboxCredentials,
  type SandboxSettings,
} from './config.ts';
import { sandboxOrderSchema, toStoreListing, toStoreOrder } from './order-mapper.ts';
import { SandboxClient } from './sandbox-client.ts';
import { verifySandboxWebhook } from './webhook-verifier.ts';

const PAGE_SIZE = 100;
const ORDER_TOPIC = /^orders\/(create|updated|paid|cancelled)$/;
const PRODUCT_TOPIC = /^products\/(create|update|delete)$/;
const orderDelivery = z.object({ order: sandboxOrderSchema });

/**
 * The sandbox store: a store on the service's own sandbox platform, for trying the connector
 * half offline with a test key (`POST /stores {platform: "SANDBOX", name?}`; a live key is
 * refused: `testModeOnly`). It is a connector like any other and imports only the kit.
 *
 * The platform it talks to is core's sandbox module (`core/src/modules/sandbox`), which keeps
 * its shops, store orders, listings and the fulfilments pushed back in the database. Its API
 * lives at `CONNECTOR_SANDBOX_API_URL`, by default an origin that never resolves, which core
 * answers in-process: every call below goes through `ctx.http` as a real platform's would, but
 * never over the network (the service need not reach its own public URL). Store orders made with
 * `POST /stores/{id}/sandbox-orders` come back as signed webhooks (`X-Sandbox-Signature`, the
 * store's secret registered here) handed to the same receiver as `/connectors/sandbox/webhooks/<storeId>`:
 * verified, stored, ingested and placed like any platform's. Polling is the safety net, tracking
 * goes back as a fulfilment, and listings can be listed, published, changed and archived.
 */
export const sandboxConnector = defineConnector<SandboxCredentials, SandboxSettings>({
  manifest: {
    platform: 'SANDBOX',
    displayName: 'Sandbox',
    settingsSchema,
    connectSchema,
    examples: { connect: { name: 'My sandbox shop' } },
    credentialsSchema,
    capabilities: { webhooks: true, polling: true, fulfilment: true, oauth: false, publishing: true },
    testModeOnly: true,
    rateLimit: { max: 50, durationMs: 1000 },
    fetchOrdersMax: 1,
    pollIntervalMs: 10 * 60_000,
  },

  async connect(ctx, input) {
    const { name } = connectSchema.parse(input);
    const opened = await new SandboxClient({ http: ctx.http, apiUrl: ctx.settings.apiUrl }).openShop(
      name ?? 'Sandbox store',
    );
    return {
      externalId: opened.shop.id,
      name: opened.shop.name,
      credentials: { shopId: opened.shop.id, token: opened.token },
    };
  },

  async registerWebhooks(ctx, store, callbackUrl) {
    const secret = store.webhookSecret ?? `whsec_${randomBytes(24).toString('base64url')}`;
    await client(ctx, store.credentials).registerWebhook(callbackUrl, secret);
    return { webhookSecret: secret };
  },

  verifyWebhook: (req, secrets) => verifySandboxWebhook(req, secrets.storeSecret),

  async parseWebhook(_ctx, _store, req) {
    const topic = req.headers['x-sandbox-topic'] ?? '';
    if (PRODUCT_TOPIC.test(topic)) return { kind: 'listings_changed' };
    if (!ORDER_TOPIC.test(topic)) return { kind: 'ignored', reason: `topic ${topic || '(none)'} is not one we act on` };
    return {
      kind: 'orders',
      orders: [toStoreOrder(parseJsonPayload(orderDelivery, req.rawBody, `Sandbox ${topic} delivery`).order)],
    };
  },

  async fetchOrders(ctx, store, externalOrderIds) {
    const sandbox = client(ctx, store.credentials);
    const orders = [];
    for (const id of externalOrderIds) orders.push(toStoreOrder(await sandbox.getOrder(id)));
    return orders;
  },

  async listOrders(ctx, store, cursor) {
    const orders = await client(ctx, store.credentials).listOrders(cursor, PAGE_SIZE);
    const last = orders.at(-1);
    return { orders: orders.map(toStoreOrder), nextCursor: last ? `${last.updated_at}|${last.id}` : cursor };
  },

  async listListings(ctx, store, cursor) {
    const page = await client(ctx, store.credentials).listProducts(Number(cursor ?? '1'));
    return {
      listings: page.products.filter((p) => p.status !== 'archived').map(toStoreListing),
      nextCursor: page.next_page === null ? null : String(page.next_page),
    };
  },

  async publishListing(ctx, store, draft) {
    return client(ctx, store.credentials).createProduct(draft);
  },

  async updateListing(ctx, store, ref, changes) {
    return client(ctx, store.credentials).updateProduct(ref.externalProductId, changes);
  },

  async unpublishListing(ctx, store, ref) {
    await client(ctx, store.credentials).archiveProduct(ref.externalProductId);
  },

  // The sandbox is a Dutch shop (its sample orders ship to the Netherlands): margins are shown for NL.
  async storeCountry() {
    return 'NL';
  },

  async getListing(ctx, store, ref) {
    return client(ctx, store.credentials).getProduct(ref.externalProductId);
  },

  async pushShipment(ctx, store, shipment) {
    await client(ctx, store.credentials).createFulfillment(shipment.externalOrderId, {
      carrier: shipment.carrier,
      tracking_number: shipment.trackingNumber,
      tracking_url: shipment.trackingUrl,
      lines: shipment.lines.map((l) => ({ line_id: l.externalLineId, sku: l.sku, quantity: l.quantity })),
    });
  },
});

function client(ctx: ConnectorContext<SandboxSettings>, credentials: SandboxCredentials): SandboxClient {
  return new SandboxClient({ http: ctx.http, apiUrl: ctx.settings.apiUrl, credentials });
}
