import type { StoreOrder } from '@print-api/connector-kit';
import { FIRST_POLL_LOOKBACK_MS, LINES_PAGE_SIZE, POLL_PAGE_SIZE } from './config.ts';
import { mapGraphqlOrder, ORDER_FIELDS, parseGraphqlLines, type GraphqlLine } from './order-mapper.ts';
import type { ShopifyClient } from './shopify-client.ts';

export const ORDERS_QUERY = `query OrdersChangedSince($first: Int!, $after: String, $query: String!, $lines: Int!) {
  orders(first: $first, after: $after, query: $query, sortKey: UPDATED_AT) {
    pageInfo { hasNextPage endCursor }
    nodes { ${ORDER_FIELDS} }
  }
}`;

const MORE_LINES = `query MoreOrderLines($id: ID!, $after: String!, $lines: Int!) {
  order(id: $id) {
    lineItems(first: $lines, after: $after) {
      pageInfo { hasNextPage endCursor }
      nodes { id sku quantity currentQuantity title variant { legacyResourceId } product { legacyResourceId } }
    }
  }
}`;

interface Page<T> {
  pageInfo: { hasNextPage: boolean; endCursor?: string | null };
  nodes: T[];
}

type RawOrder = { id: string; lineItems: Page<unknown> } & Record<string, unknown>;

/**
 * Where polling stands: the run's lower bound (`updated_at:>since`), the GraphQL cursor of the
 * next page in this run, and the newest `updatedAt` seen in it (the next run's bound).
 */
export interface PollCursor {
  since: string;
  after: string | null;
  newest: string;
}

/** Reads a stored cursor; anything unreadable starts over from the default look-back. */
export function decodeCursor(raw: string | null, now: Date): PollCursor {
  const start = new Date(now.getTime() - FIRST_POLL_LOOKBACK_MS).toISOString();
  if (raw) {
    try {
      const c = JSON.parse(raw) as Partial<PollCursor>;
      if (typeof c.since === 'string' && typeof c.newest === 'string' && (c.after === null || typeof c.after === 'string')) return { since: c.since, after: c.after, newest: c.newest };
    } catch {
      // fall through: start over
    }
  }
  return { since: start, after: null, newest: start };
}

/**
 * One page of orders updated since the cursor, oldest change first (GraphQL
 * `orders(query: "updated_at:>…", sortKey: UPDATED_AT)` with cursor pages). A run keeps its
 * bound and follows `endCursor`; after the last page the next run starts from the newest
 * change seen. This is how a store whose webhooks were missed catches up.
 */
export async function pollOrders(client: ShopifyClient, rawCursor: string | null, now: Date): Promise<{ orders: StoreOrder[]; nextCursor: string }> {
  const cursor = decodeCursor(rawCursor, now);
  const data = await client.graphql<{ orders: Page<RawOrder> }>(ORDERS_QUERY, {
    first: POLL_PAGE_SIZE,
    after: cursor.after,
    query: `updated_at:>'${cursor.since}'`,
    lines: LINES_PAGE_SIZE,
  });
  const orders: StoreOrder[] = [];
  let newest = cursor.newest;
  for (const raw of data.orders.nodes) {
    const order = mapGraphqlOrder(raw, await remainingLines(client, raw));
    orders.push(order);
    if (order.updatedAt > newest) newest = order.updatedAt;
  }
  const { hasNextPage, endCursor } = data.orders.pageInfo;
  const next: PollCursor = hasNextPage && endCursor && orders.length > 0 ? { since: cursor.since, after: endCursor, newest } : { since: newest, after: null, newest };
  return { orders, nextCursor: JSON.stringify(next) };
}

/** The line items beyond the first page of a large order. */
async function remainingLines(client: ShopifyClient, order: RawOrder): Promise<GraphqlLine[]> {
  const lines: GraphqlLine[] = [];
  let page = order.lineItems.pageInfo;
  while (page.hasNextPage && page.endCursor) {
    const data = await client.graphql<{ order: { lineItems: Page<unknown> } | null }>(MORE_LINES, { id: order.id, after: page.endCursor, lines: 100 });
    if (!data.order) break;
    lines.push(...parseGraphqlLines(data.order.lineItems.nodes));
    page = data.order.lineItems.pageInfo;
  }
  return lines;
}
