import { expect } from 'chai';
import { assertGolden } from '@print-api/connector-kit/testing';
import { orderSchema, reducedOrdersSchema, toStoreOrder } from '../src/order-mapper.ts';
import retailer from './fixtures/contract/retailer-v10.json' with { type: 'json' };

type Schema = { $ref?: string; type?: string; example?: unknown; properties?: Record<string, Schema>; items?: Schema };
const schemas = retailer.components.schemas as Record<string, Schema>;

/** bol's documented example of a schema: each property's own `example`, objects and arrays built from theirs. */
function exampleOf(schema: Schema): unknown {
  if (schema.$ref) return exampleOf(schemas[schema.$ref.split('/').pop()!]!);
  if (schema.example !== undefined) return schema.example;
  if (schema.type === 'array' && schema.items) return [exampleOf(schema.items)];
  if (schema.properties)
    return Object.fromEntries(Object.entries(schema.properties).map(([k, v]) => [k, exampleOf(v)]));
  return undefined;
}

const golden = (name: string) => new URL(`./fixtures/golden/${name}`, import.meta.url).pathname;

describe("bol's documented examples through the mapper (golden)", () => {
  it('reads the documented order list (ReducedOrders) and order (Order) as their schemas give them', () => {
    const list = reducedOrdersSchema.parse(exampleOf({ $ref: '#/components/schemas/ReducedOrders' }));
    expect(list.orders).to.have.length(1);
    const order = orderSchema.parse(exampleOf({ $ref: '#/components/schemas/Order' }));
    assertGolden(golden('order.expected.json'), toStoreOrder(order));
  });
});
