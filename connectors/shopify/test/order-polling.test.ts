import { expect } from 'chai';
import type { HttpClient } from '@print-api/connector-kit';
import { fetchOrdersById } from '../src/order-polling.ts';
import { ShopifyClient } from '../src/shopify-client.ts';
import { FakeShopifyStore } from './fake-shopify-store.ts';
import { shopifyOrder } from './shopify-fixtures.ts';
import { nockedPlatformSuite } from '@print-api/core/testing';

describe('Shopify orders by id (fetchOrders, GraphQL nodes)', () => {
  let http: HttpClient;
  nockedPlatformSuite((made) => (http = made));

  it('fetches the orders as the shop has them now, every line included, and leaves out ids it does not have', async () => {
    const store = new FakeShopifyStore({
      name: 'fetch-test',
      app: { apiKey: 'k', secret: 's' },
      ourBaseUrl: 'http://127.0.0.1:1',
      publicUrl: 'https://print-api.example.com',
    });
    const line = shopifyOrder().line_items[0]!;
    const lines = Array.from({ length: 30 }, (_, i) => ({
      ...line,
      id: line.id + i,
      admin_graphql_api_id: `gid://shopify/LineItem/${line.id + i}`,
    }));
    const order = store.save(
      shopifyOrder({ id: 6512345678999, admin_graphql_api_id: 'gid://shopify/Order/6512345678999', line_items: lines }),
    );
    const client = new ShopifyClient({ http, shop: store.domain, accessToken: store.customToken });
    const fetched = await fetchOrdersById(client, [String(order.id), '1']);
    expect(fetched.map((o) => o.externalId)).to.deep.equal(['6512345678999']);
    expect(fetched[0]!.lines.map((l) => l.externalLineId)).to.deep.equal(lines.map((l) => String(l.id)));
    expect(store.seen('OrdersById').map((c) => c.variables)).to.deep.equal([
      { ids: ['gid://shopify/Order/6512345678999', 'gid://shopify/Order/1'], lines: 25 },
    ]);
  });
});
