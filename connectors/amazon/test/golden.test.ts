import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { assertGolden } from '@print-api/connector-kit/testing';
import { amazonOrderSchema, isMerchantFulfilled, toStoreOrder } from '../src/order-mapper.ts';
import model from './fixtures/contract/orders_2026-01-01.json' with { type: 'json' };

type Json = Record<string, any>;

/**
 * Every order Amazon publishes in its orders 2026-01-01 model (the searchOrders and getOrder
 * examples, and the static sandbox's answers), run through the mapper: what each becomes is
 * kept in fixtures/golden/orders-2026-01-01.expected.json. FBA orders are left out by the
 * connector (`merchantFulfilled: false`, no store order).
 */
function publishedOrders(): Array<{ source: string; order: unknown }> {
  const samples: Array<{ source: string; order: unknown }> = [];
  for (const [path, item] of Object.entries<Json>(model.paths)) {
    for (const op of Object.values<Json>(item)) {
      if (!op || typeof op !== 'object' || !op.responses) continue;
      const ok: Json = op.responses['200'] ?? {};
      const bodies: Array<[string, Json]> = [];
      if (ok.examples?.['application/json'])
        bodies.push([`${op.operationId} example`, ok.examples['application/json']]);
      (ok['x-amzn-api-sandbox']?.static ?? []).forEach((c: Json, i: number) =>
        bodies.push([`${op.operationId} sandbox #${i + 1}`, c.response]),
      );
      for (const [source, body] of bodies) {
        const orders: unknown[] = body.orders ?? (body.order ? [body.order] : []);
        orders.forEach((order, i) => samples.push({ source: `${path} ${source} order ${i + 1}`, order }));
      }
    }
  }
  return samples;
}

/**
 * What the published samples lack, each made from the searchOrders example by one documented
 * change (kept apart from the published ones, named by the change).
 */
function derivedOrders(base: Json): Array<{ source: string; order: unknown }> {
  const address = base.recipient.deliveryAddress;
  const with_ = (change: string, over: Json) => ({
    source: `derived from the searchOrders example: ${change}`,
    order: { ...structuredClone(base), ...over },
  });
  return [
    with_('UNSHIPPED (ready to ship)', { fulfillment: { ...base.fulfillment, fulfillmentStatus: 'UNSHIPPED' } }),
    with_('CANCELLED', { fulfillment: { ...base.fulfillment, fulfillmentStatus: 'CANCELLED' } }),
    with_('PENDING (not paid yet)', { fulfillment: { ...base.fulfillment, fulfillmentStatus: 'PENDING' } }),
    with_('no recipient (an app without the Direct-to-Consumer Delivery role)', {
      recipient: undefined,
      buyer: undefined,
    }),
    with_('a Japanese address in Japanese script', {
      recipient: {
        deliveryAddress: {
          name: '山田 太郎',
          addressLine1: '千代田区丸の内1-1-1',
          addressLine2: '丸の内ビル 10階',
          city: '東京都',
          stateOrRegion: '東京都',
          postalCode: '100-0005',
          countryCode: 'JP',
          phone: '03-1234-5678',
        },
      },
    }),
    with_('an Italian address (province MI)', {
      recipient: {
        deliveryAddress: {
          ...address,
          name: 'Giulia Bianchi',
          companyName: undefined,
          addressLine1: 'Via Torino 12',
          addressLine2: '',
          city: 'Milano',
          districtOrCounty: 'Milano',
          stateOrRegion: 'MI',
          postalCode: '20123',
          countryCode: 'IT',
          phone: '+39 02 1234567',
        },
      },
    }),
    with_('an item without sellerSku (not a print line)', {
      orderItems: [{ ...base.orderItems[0], product: { ...base.orderItems[0].product, sellerSku: undefined } }],
    }),
  ];
}

describe("Amazon's published orders through the mapper (golden corpus)", () => {
  it('maps every order of the orders 2026-01-01 model (examples and static sandbox) as the snapshot says', () => {
    const published = publishedOrders();
    assert.ok(published.length >= 8, `only ${published.length} published orders found`);
    const samples = [...published, ...derivedOrders(published[0]!.order as Json)];
    const mapped = samples.map(({ source, order }) => {
      const parsed = amazonOrderSchema.parse(order);
      return {
        source,
        merchantFulfilled: isMerchantFulfilled(parsed),
        storeOrder: isMerchantFulfilled(parsed) ? toStoreOrder(parsed) : null,
      };
    });
    assertGolden(fileURLToPath(new URL('./fixtures/golden/orders-2026-01-01.expected.json', import.meta.url)), mapped);
  });
});
