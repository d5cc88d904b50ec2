import { defineConnector, type StoreConnection } from '@print-api/connector-kit';
import { BolApi, issueToken, tokenDue, type BolContext } from './bol-client.ts';
import { connectSchema, credentialsSchema, settingsSchema, type BolCredentials, type BolSettings } from './config.ts';
import { toStoreOrder } from './order-mapper.ts';
import { getOrder, pollPage } from './order-polling.ts';
import { pushShipment } from './shipment-push.ts';

const api = (ctx: BolContext, store: StoreConnection<BolCredentials>) => new BolApi(ctx, store.credentials);

/**
 * bol.com (Retailer API v10): the seller's API credentials pasted to `POST /stores` (client credentials, HTTP Basic
 * at bol's login, 5-minute tokens renewed before each call that needs one); open FBR orders polled (bol sends no
 * webhooks we take), each read in detail and matched by the offer's own `reference`; shipments sent with our
 * carrier's transporter code, their process status followed to SUCCESS. No publishing: bol offers need an EAN.
 */
export const bolConnector = defineConnector<BolCredentials, BolSettings>({
  manifest: {
    platform: 'BOL',
    displayName: 'bol.com',
    settingsSchema,
    connectSchema,
    examples: {
      connect: { clientId: '3f8c2a1e-6b4d-4e9f-a2c7-5d1b0e9f8a34', clientSecret: 'Vb7kQ2mX9pL4sR8tW1yZ6nC3fH5jD0gA' },
    },
    credentialsSchema,
    capabilities: { webhooks: false, polling: true, fulfilment: true, oauth: false },
    publishingAdvice:
      "bol offers are sold on a product's EAN, which print-on-demand products do not have. Create the offer in the bol seller dashboard with your own reference set to your product's SKU: bol's orders carry that reference, and map by it (another reference can be mapped with POST /stores/{id}/links).",
    // bol answers 429 with Retry-After per endpoint (waited out by core); this keeps one store well below it.
    rateLimit: { max: 10, durationMs: 1000 },
    // One order detail call per order.
    fetchOrdersMax: 1,
    pollIntervalMs: 5 * 60_000,
  },

  async connect(ctx, input) {
    const { clientId, clientSecret } = connectSchema.parse(input);
    const credentials = await issueToken(ctx, { clientId, clientSecret }, false);
    return { externalId: clientId, name: `bol.com seller (API client ${clientId.slice(0, 8)}…)`, credentials };
  },

  refreshCredentials: async (ctx, store) =>
    tokenDue(store.credentials, ctx.clock()) ? issueToken(ctx, store.credentials, true) : null,
  credentialsDue: (store, now) => tokenDue(store.credentials, now),

  verifyWebhook: () => ({ ok: false, reason: 'bol orders are polled: this connector takes no webhooks' }),

  async parseWebhook() {
    return { kind: 'ignored', reason: 'bol orders are polled' };
  },

  listOrders: (ctx, store, cursor) => pollPage(ctx, api(ctx, store), cursor),

  async fetchOrders(ctx, store, externalOrderIds) {
    const client = api(ctx, store);
    const orders = [];
    for (const id of externalOrderIds) orders.push(toStoreOrder(await getOrder(client, id)));
    return orders;
  },

  pushShipment: (ctx, store, shipment) => pushShipment(ctx, api(ctx, store), shipment),
});
