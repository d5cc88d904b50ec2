import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { AppStrategy, createClient } from '@wix/sdk';
import { mapWixOrder } from '../src/order-mapper.ts';
import { APP, FakeWix, takeContractViolations } from './fake-wix.ts';
import { wixOrderOf } from './fake-wix-orders.ts';
import fulfillmentCreated from './fixtures/fulfillment-created.json' with { type: 'json' };
import orderFixture from './fixtures/order.json' with { type: 'json' };
import productsV3 from './fixtures/products-v3.json' with { type: 'json' };
import {
  ADD_PRODUCT_MEDIA_REQUEST,
  CREATE_PRODUCT_REQUEST,
  CREATE_PRODUCT_WITH_INVENTORY_REQUEST,
  declaredLength,
  interfaceKeys,
  ORDER,
  ORDER_EVENT_TYPES,
  routeViolation,
  QUERY_VARIANTS_REQUEST,
  requiredViolations,
  SEARCH_ORDERS_REQUEST,
  shapeViolations,
  UPDATE_PRODUCT_REQUEST,
  UPDATE_PRODUCT_V3_REQUEST,
  V3_PRODUCT,
} from './wix-contract.ts';
import { scaled } from '@print-api/core/testing';

const GOLDEN = new URL('./fixtures/golden/', import.meta.url);

describe('Wix contract: the official SDK packages (@wix/sdk, @wix/auto_sdk_ecom_orders, @wix/auto_sdk_ecom_order-fulfillments)', function () {
  this.timeout(scaled(30_000));
  afterEach(() => assert.deepEqual(takeContractViolations(), []));

  it("signs and nests the fake's webhooks as @wix/sdk's own parser reads them (RS256 with the app's public key, three JSON levels)", async () => {
    const wix = new FakeWix();
    const site = wix.newSite();
    const client = createClient({
      auth: AppStrategy({ appId: APP.appId, publicKey: wix.keys.publicKey }),
      modules: {},
    });
    const order = wixOrderOf({
      id: 'a1b2c3d4-1111-4222-8333-444455556666',
      paid: true,
      lines: [{ sku: 'POSTER-TULIPS', quantity: 2 }],
    });
    for (const eventType of [
      'wix.ecom.v1.order_approved',
      'wix.ecom.v1.order_payment_status_updated',
      'wix.ecom.v1.order_updated',
      'wix.ecom.v1.order_canceled',
    ]) {
      assert.ok(ORDER_EVENT_TYPES.has(eventType), eventType);
      const event = wix.orderEvent(order, eventType);
      const parsed = await client.webhooks.parseJWT(wix.webhookBody(site, eventType, event));
      assert.deepEqual(
        { eventType: parsed.eventType, instanceId: parsed.instanceId, payload: parsed.payload },
        { eventType, instanceId: site.instanceId, payload: event },
      );
    }
    // A body signed with another key is refused by the SDK too.
    const other = new FakeWix();
    await assert.rejects(
      client.webhooks.parseJWT(
        other.webhookBody(site, 'wix.ecom.v1.order_approved', wix.orderEvent(order, 'wix.ecom.v1.order_approved')),
      ),
    );
  });

  it('keeps the documented order and the fulfilment answer to the SDK types (fields and enum values)', () => {
    assert.deepEqual(shapeViolations(orderFixture, ORDER), []);
    const answer = fulfillmentCreated as { orderWithFulfillments: { fulfillments: unknown[] } };
    for (const key of Object.keys(answer)) assert.ok(interfaceKeys('CreateFulfillmentResponse').has(key), key);
    assert.deepEqual(
      shapeViolations(answer.orderWithFulfillments.fulfillments, {
        type: 'Fulfillment',
        fields: { lineItems: { type: 'FulfillmentLineItem' }, trackingInfo: { type: 'FulfillmentTrackingInfo' } },
      }),
      [],
    );
  });

  it('holds the Catalog V1 product writes to @wix/auto_sdk_stores_products: their paths, request fields and productType', () => {
    const product = {
      name: 'Tulip poster A2',
      productType: 'physical',
      sku: 'POSTER-TULIPS-A2',
      visible: true,
      priceData: { price: 24.95 },
      description: 'Tulips',
    };
    assert.deepEqual(shapeViolations({ product }, CREATE_PRODUCT_REQUEST), []);
    assert.deepEqual(shapeViolations({ product: { visible: false } }, UPDATE_PRODUCT_REQUEST), []);
    assert.deepEqual(
      shapeViolations({ media: [{ url: 'https://cdn.example.com/a.jpg' }] }, ADD_PRODUCT_MEDIA_REQUEST),
      [],
    );
    // Catalog V3's spellings are not V1's: an upper-case productType, a price object, media items.
    assert.deepEqual(
      shapeViolations(
        { product: { ...product, productType: 'PHYSICAL', priceData: { actualPrice: { amount: '24.95' } } } },
        CREATE_PRODUCT_REQUEST,
      ),
      [
        'product.productType: PHYSICAL is not a ProductType',
        'product.priceData.actualPrice: stores:PriceData has no field actualPrice',
      ],
    );
    assert.deepEqual(
      shapeViolations({ media: [{ image: 'https://cdn.example.com/a.jpg' }] }, ADD_PRODUCT_MEDIA_REQUEST),
      ['media[0].image: stores:MediaDataForWrite has no field image'],
    );
    assert.equal(routeViolation('createProduct', 'POST', '/stores/v1/products'), null);
    assert.equal(routeViolation('updateProduct', 'PATCH', '/stores/v1/products/4b2c'), null);
    assert.equal(routeViolation('addProductMedia', 'POST', '/stores/v1/products/4b2c/media'), null);
    assert.match(
      routeViolation('updateProduct', 'PUT', '/stores/v1/products/4b2c')!,
      /the SDK sends PATCH \/stores\/v1\/products\/:productId/,
    );
  });

  it('holds the Catalog V3 calls to @wix/auto_sdk_stores_products-v-3 and -read-only-variants-v-3: paths, request fields, required fields, enums, bounds', () => {
    const variant = {
      sku: 'POSTER-TULIPS-A2',
      choices: [],
      price: { actualPrice: { amount: '24.95' } },
      physicalProperties: {},
      inventoryItem: { inStock: true },
    };
    const product = {
      name: 'Tulip poster A2',
      productType: 'PHYSICAL',
      visible: true,
      physicalProperties: {},
      plainDescription: '<p>Tulips</p>',
      media: { itemsInfo: { items: [{ url: 'https://cdn.example.com/a.jpg' }] } },
      variantsInfo: { variants: [variant] },
    };
    const create = { product, fields: ['URL'] };
    assert.deepEqual(shapeViolations(create, CREATE_PRODUCT_WITH_INVENTORY_REQUEST), []);
    assert.deepEqual(requiredViolations('createProductWithInventory', create), []);
    // V1's spellings are not V3's: a lower-case productType, a number price, a SKU on the product.
    assert.deepEqual(
      shapeViolations(
        {
          product: { ...product, productType: 'physical', sku: 'X', priceData: { price: 24.95 } },
          fields: ['URL', 'URLS'],
        },
        CREATE_PRODUCT_WITH_INVENTORY_REQUEST,
      ),
      [
        'product.productType: physical is not a V3ProductType',
        'product.sku: v3:ProductWithInventory has no field sku',
        'product.priceData: v3:ProductWithInventory has no field priceData',
        'fields: URLS is not a SingleEntityOpsRequestedFields',
      ],
    );
    // The package's @requiredField tags: a name, a type, variants, each with a price.
    assert.deepEqual(
      requiredViolations('createProductWithInventory', {
        product: { variantsInfo: { variants: [{ ...variant, price: {} }] } },
      }),
      [
        'product.name: is required',
        'product.productType: is required',
        'product.variantsInfo.variants[0].price.actualPrice: is required',
      ],
    );
    const update = { product: { id: 'p', revision: '1', visible: false }, fields: ['URL'] };
    assert.deepEqual(shapeViolations(update, UPDATE_PRODUCT_V3_REQUEST), []);
    assert.deepEqual(requiredViolations('updateProductV3', { product: { id: 'p', visible: false } }), [
      'product.revision: is required',
    ]);
    // The fixture's product is a V3Product as Get Product answers it.
    assert.deepEqual(shapeViolations(productsV3.products[0], V3_PRODUCT), []);
    assert.deepEqual(
      shapeViolations({ query: { cursorPaging: { limit: 100, cursor: 'x' } } }, QUERY_VARIANTS_REQUEST),
      [],
    );
    assert.deepEqual(
      [declaredLength('v3:V3Product', 'name'), declaredLength('v3:VariantWithInventory', 'sku')],
      [
        { min: 1, max: 80 },
        { min: 1, max: 40 },
      ],
    );
    assert.equal(routeViolation('getCatalogVersion', 'GET', '/stores/v3/provision/version'), null);
    assert.equal(routeViolation('createProductWithInventory', 'POST', '/stores/v3/products-with-inventory'), null);
    assert.equal(routeViolation('getProductV3', 'GET', '/stores/v3/products/4b2c'), null);
    assert.equal(routeViolation('updateProductV3', 'PATCH', '/stores/v3/products/4b2c'), null);
    assert.equal(routeViolation('queryVariants', 'POST', '/stores/v3/products/query-variants'), null);
    assert.match(
      routeViolation('createProductWithInventory', 'POST', '/stores/v3/products')!,
      /the SDK sends POST \/stores\/v3\/products-with-inventory/,
    );
  });

  it('refuses what the SDK does not have: a field, an enum value, a path', () => {
    assert.deepEqual(shapeViolations({ ...orderFixture, paymentStatus: 'PAYED', shipTo: {} }, ORDER), [
      'paymentStatus: PAYED is not a PaymentStatus',
      'shipTo: Order has no field shipTo',
    ]);
    assert.deepEqual(
      shapeViolations(
        { search: { paging: { limit: 100 }, sort: [{ fieldName: 'updatedDate', order: 'ASCENDING' }] } },
        SEARCH_ORDERS_REQUEST,
      ),
      ['search.paging: CursorSearch has no field paging', 'search.sort[0].order: ASCENDING is not a SortOrder'],
    );
    assert.match(
      routeViolation('searchOrders', 'POST', '/ecom/v1/orders/query') ?? '',
      /the SDK sends POST \/ecom\/v1\/orders\/search/,
    );
    assert.equal(routeViolation('getOrder', 'GET', '/ecom/v1/orders/a1b2c3d4-1111-4222-8333-444455556666'), null);
  });

  describe('golden corpus: the documented order and its variants through the mapper', () => {
    const it_ = (name: string, order: Record<string, unknown>) =>
      it(`maps ${name} as its snapshot says`, () => {
        const mapped = JSON.parse(JSON.stringify(mapWixOrder(order)));
        const file = new URL(`${name}.expected.json`, GOLDEN);
        if (process.env.UPDATE_GOLDEN === '1') writeFileSync(file, `${JSON.stringify(mapped, null, 2)}\n`);
        assert.deepEqual(mapped, JSON.parse(readFileSync(file, 'utf8')));
      });
    const line = orderFixture.lineItems[0]!;
    it_('order', orderFixture);
    it_(
      'order-sdk-names',
      (({ id, createdDate, updatedDate, ...rest }) => ({
        ...rest,
        _id: id,
        _createdDate: createdDate,
        _updatedDate: updatedDate,
      }))(structuredClone(orderFixture)),
    );
    it_('order-several-lines-digital-and-refunded', {
      ...structuredClone(orderFixture),
      paymentStatus: 'PARTIALLY_REFUNDED',
      lineItems: [
        line,
        {
          ...line,
          id: '00000000-0000-0000-0000-000000000002',
          quantity: 3,
          refundQuantity: 1,
          physicalProperties: { sku: 'POSTER-DUNES', shippable: true },
        },
        {
          ...line,
          id: '00000000-0000-0000-0000-000000000003',
          physicalProperties: undefined,
          productName: { original: 'E-book' },
        },
      ],
    });
    it_('order-italian-non-latin-structured-street', {
      ...structuredClone(orderFixture),
      shippingInfo: {
        logistics: {
          shippingDestination: {
            address: {
              country: 'IT',
              subdivision: 'IT-MI',
              city: 'Milano',
              postalCode: '20121',
              streetAddress: { number: '12', name: 'Via Torino' },
            },
            contactDetails: { firstName: '陈', lastName: '美玲', company: 'Tipografia Rossi S.r.l.' },
          },
        },
      },
    });
    it_('order-without-optional-fields', {
      id: 'b2c3d4e5-2222-4333-8444-555566667777',
      createdDate: '2026-01-02T10:00:00.000Z',
      updatedDate: '2026-01-02T10:00:00.000Z',
      status: 'APPROVED',
      paymentStatus: 'NOT_PAID',
      lineItems: [],
    });
  });
});
