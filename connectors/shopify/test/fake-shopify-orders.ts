import orderFixture from './fixtures/order.json' with { type: 'json' };

// The GraphQL Admin API's order operations as the fake shop answers them: orders changed since a time and by id (with
// cursor pages of lines), fulfillment orders and `fulfillmentCreate` with Shopify's quantity checks.

/** An order webhook body, typed from the fixture (nullable fields widened). */
export type ShopifyOrderJson = Omit<
  typeof orderFixture,
  'cancelled_at' | 'cancel_reason' | 'phone' | 'email' | 'shipping_address'
> & {
  cancelled_at: string | null;
  cancel_reason: string | null;
  phone: string | null;
  email: string | null;
  shipping_address: typeof orderFixture.shipping_address | null;
};

export interface FulfillmentOrder {
  id: string;
  status: string;
  items: Array<{ id: string; lineItemId: string; sku: string | null; remaining: number }>;
}

/** The part of a shop the order operations read and write. */
export interface OrderShop {
  readonly orders: Map<string, ShopifyOrderJson>;
  readonly fulfillmentOrders: Map<string, FulfillmentOrder[]>;
  readonly fulfillments: Array<{
    fulfillmentOrderId: string;
    items: Array<{ id: string; quantity: number }>;
    trackingInfo: unknown;
    notifyCustomer: boolean;
  }>;
  nextId(): number;
}

/** The data of order `operation` with variables `v`, or undefined when it is not an order operation. */
export function orderOperation(shop: OrderShop, operation: string, v: Record<string, any>): unknown {
  switch (operation) {
    case 'OrdersChangedSince': {
      const since = /updated_at:>='([^']+)'/.exec(v.query)?.[1] ?? '';
      const list = [...shop.orders.values()]
        .filter((o) => Date.parse(o.updated_at) >= Date.parse(since))
        .sort((a, b) => Date.parse(a.updated_at) - Date.parse(b.updated_at));
      const start = v.after ? Number(Buffer.from(v.after, 'base64url').toString()) : 0;
      const page = list.slice(start, start + v.first);
      const end = start + page.length;
      return {
        orders: {
          pageInfo: { hasNextPage: end < list.length, endCursor: Buffer.from(String(end)).toString('base64url') },
          nodes: page.map((o) => toGraphqlOrder(o, v.lines)),
        },
      };
    }
    case 'OrdersById':
      return {
        nodes: (v.ids as string[]).map((gid) => {
          const o = shop.orders.get(gid.split('/').pop()!);
          return o ? toGraphqlOrder(o, v.lines) : null;
        }),
      };
    case 'MoreOrderLines': {
      const order = shop.orders.get(String(v.id).split('/').pop()!);
      if (!order) return { order: null };
      const start = Number(Buffer.from(v.after, 'base64url').toString());
      const all = toGraphqlOrder(order, Number.MAX_SAFE_INTEGER).lineItems.nodes;
      const nodes = all.slice(start, start + v.lines);
      const end = start + nodes.length;
      return {
        order: {
          lineItems: {
            pageInfo: { hasNextPage: end < all.length, endCursor: Buffer.from(String(end)).toString('base64url') },
            nodes,
          },
        },
      };
    }
    case 'OpenFulfillmentOrders': {
      const id = String(v.id).split('/').pop()!;
      const fos = shop.fulfillmentOrders.get(id);
      if (!fos) return { order: null };
      return {
        order: {
          id: v.id,
          fulfillmentOrders: {
            nodes: fos.map((fo) => ({
              id: fo.id,
              status: fo.status,
              supportedActions: fo.status === 'CLOSED' ? [] : [{ action: 'CREATE_FULFILLMENT' }, { action: 'HOLD' }],
              lineItems: {
                nodes: fo.items.map((i) => ({
                  id: i.id,
                  remainingQuantity: i.remaining,
                  lineItem: { id: i.lineItemId, sku: i.sku },
                })),
              },
            })),
          },
        },
      };
    }
    case 'FulfilPrintLines': {
      const input = v.fulfillment;
      const group = input.lineItemsByFulfillmentOrder[0];
      const fo = [...shop.fulfillmentOrders.values()].flat().find((f) => f.id === group.fulfillmentOrderId);
      if (!fo)
        return {
          fulfillmentCreate: {
            fulfillment: null,
            userErrors: [{ field: ['fulfillment'], message: 'Fulfillment order does not exist.' }],
          },
        };
      for (const item of group.fulfillmentOrderLineItems) {
        const line = fo.items.find((i) => i.id === item.id);
        if (!line || item.quantity > line.remaining)
          return {
            fulfillmentCreate: {
              fulfillment: null,
              userErrors: [
                {
                  field: [
                    'fulfillment',
                    'lineItemsByFulfillmentOrder',
                    '0',
                    'fulfillmentOrderLineItems',
                    '0',
                    'quantity',
                  ],
                  message: 'Invalid fulfillment order line item quantity requested.',
                },
              ],
            },
          };
      }
      for (const item of group.fulfillmentOrderLineItems)
        fo.items.find((i) => i.id === item.id)!.remaining -= item.quantity;
      fo.status = fo.items.every((i) => i.remaining === 0) ? 'CLOSED' : 'IN_PROGRESS';
      shop.fulfillments.push({
        fulfillmentOrderId: fo.id,
        items: group.fulfillmentOrderLineItems,
        trackingInfo: input.trackingInfo,
        notifyCustomer: input.notifyCustomer,
      });
      return {
        fulfillmentCreate: {
          fulfillment: {
            id: `gid://shopify/Fulfillment/${shop.nextId()}`,
            status: 'SUCCESS',
            trackingInfo: [input.trackingInfo],
          },
          userErrors: [],
        },
      };
    }
    default:
      return undefined;
  }
}

/** The webhook (REST) order as the GraphQL Admin API shows it. */
export function toGraphqlOrder(o: ShopifyOrderJson, lines = 25) {
  const a = o.shipping_address;
  const nodes = o.line_items.map((l) => ({
    id: l.admin_graphql_api_id,
    sku: l.sku,
    quantity: l.quantity,
    currentQuantity: l.current_quantity,
    title: l.title,
    variant: l.variant_id ? { legacyResourceId: String(l.variant_id) } : null,
    product: l.product_id ? { legacyResourceId: String(l.product_id) } : null,
  }));
  return {
    id: o.admin_graphql_api_id,
    legacyResourceId: String(o.id),
    name: o.name,
    email: o.email,
    phone: o.phone,
    createdAt: new Date(o.created_at).toISOString().replace('.000', ''),
    updatedAt: new Date(o.updated_at).toISOString().replace('.000', ''),
    cancelledAt: o.cancelled_at ? new Date(o.cancelled_at).toISOString() : null,
    displayFinancialStatus: String(o.financial_status).toUpperCase(),
    shippingAddress: a
      ? {
          name: a.name,
          firstName: a.first_name,
          lastName: a.last_name,
          company: a.company,
          address1: a.address1,
          address2: a.address2,
          city: a.city,
          zip: a.zip,
          province: a.province ?? null,
          provinceCode: a.province_code ?? null,
          countryCodeV2: a.country_code,
          phone: a.phone,
        }
      : null,
    lineItems: {
      pageInfo: {
        hasNextPage: nodes.length > lines,
        endCursor: Buffer.from(String(Math.min(lines, nodes.length))).toString('base64url'),
      },
      nodes: nodes.slice(0, lines),
    },
  };
}
