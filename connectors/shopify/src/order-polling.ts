import { TimeWindowCursor, type PollPosition, type StoreOrder } from '@print-api/connector-kit';
import { FIRST_POLL_LOOKBACK_MS, LINES_PAGE_SIZE, POLL_PAGE_SIZE } from './config.ts';
import { mapGraphqlOrder, ORDER_FIELDS, parseGraphqlLines, type GraphqlLine } from './order-mapper.ts';
import type { ShopifyClient } from './shopify-client.ts';

export const ORDERS_QUERY = `query OrdersChangedSince($first: Int!, $after: String, $query: String!, $lines: Int!) {
  orders(first: $first, after: $after, query: $query, sortKey: UPDATED_AT) {
    pageInfo { hasNextPage endCursor }
    nodes { ${ORDER_FIELDS} }
  }
}`;

export const ORDERS_BY_ID = `query OrdersById($ids: [ID!]!, $lines: Int!) {
  nodes(ids: $ids) { ... on Order { ${ORDER_FIELDS} } }
}`;

/** Orders asked for by id in one query (Shopify's `nodes` takes up to 250). */
export const FETCH_BATCH = 50;

export const MORE_LINES = `query MoreOrderLines($id: ID!, $after: String!, $lines: Int!) {
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
 * Polling follows `updated_at` with GraphQL cursor pages (the kit's cursor, token paging): a run
 * keeps its bound and follows `endCursor`; after the last page the next run asks for changes
 * after the newest one seen.
 */
export const pollWindow = new TimeWindowCursor({ lookBackMs: FIRST_POLL_LOOKBACK_MS });

/** Where polling stands; a cursor of the earlier format (`{since, after, newest}`) starts a run after its `since`. */
export function readCursor(raw: string | null, now: Date): PollPosition {
  const earlier = raw ? earlierFormatSince(raw) : null;
  return pollWindow.read(earlier ? pollWindow.startingAt(earlier) : raw, now);
}

/**
 * One page of orders updated since the cursor, oldest change first (GraphQL
 * `orders(query: "updated_at:>=…", sortKey: UPDATED_AT)` with cursor pages). This is how a
 * store whose webhooks were missed catches up.
 */
export async function pollOrders(
  client: ShopifyClient,
  rawCursor: string | null,
  now: Date,
): Promise<{ orders: StoreOrder[]; nextCursor: string }> {
  const at = readCursor(rawCursor, now);
  const data = await client.graphql<{ orders: Page<RawOrder> }>(ORDERS_QUERY, {
    first: POLL_PAGE_SIZE,
    after: at.pageToken,
    query: `updated_at:>='${wholeSecondsUp(at.since)}'`,
    lines: LINES_PAGE_SIZE,
  });
  const orders: StoreOrder[] = [];
  for (const raw of data.orders.nodes) orders.push(mapGraphqlOrder(raw, await remainingLines(client, raw)));
  const { hasNextPage, endCursor } = data.orders.pageInfo;
  return {
    orders,
    nextCursor: pollWindow.next(at, {
      updatedAt: orders.map((o) => o.updatedAt),
      nextPageToken: hasNextPage ? endCursor : null,
    }),
  };
}

/**
 * Orders by their numeric ids, as the shop has them now (GraphQL `nodes` with the polling
 * query's fields); an id the shop no longer has is left out.
 */
export async function fetchOrdersById(client: ShopifyClient, ids: string[]): Promise<StoreOrder[]> {
  const orders: StoreOrder[] = [];
  for (let i = 0; i < ids.length; i += FETCH_BATCH) {
    const batch = ids.slice(i, i + FETCH_BATCH).map((id) => `gid://shopify/Order/${id}`);
    // A missing id is null; a node of another type would be `{}` (the fragment selects nothing of it).
    const data = await client.graphql<{ nodes: Array<Partial<RawOrder> | null> }>(ORDERS_BY_ID, {
      ids: batch,
      lines: LINES_PAGE_SIZE,
    });
    for (const raw of data.nodes) {
      if (!raw?.id || !raw.lineItems) continue;
      const order: RawOrder = { ...raw, id: raw.id, lineItems: raw.lineItems };
      orders.push(mapGraphqlOrder(order, await remainingLines(client, order)));
    }
  }
  return orders;
}

/** Shopify's `updated_at` counts whole seconds: "at or after `since`" is at or after the next whole second. */
function wholeSecondsUp(since: Date): string {
  return new Date(Math.ceil(since.getTime() / 1000) * 1000).toISOString().replace('.000Z', 'Z');
}

/** The exclusive `since` of a cursor stored before the kit's, as the inclusive time after it. */
function earlierFormatSince(raw: string): Date | null {
  try {
    const c = JSON.parse(raw) as { v?: unknown; since?: unknown };
    if (c.v !== undefined || typeof c.since !== 'string') return null;
    const since = Date.parse(c.since);
    return Number.isNaN(since) ? null : new Date(since + 1);
  } catch {
    return null;
  }
}

/** The line items beyond the first page of a large order. */
async function remainingLines(client: ShopifyClient, order: RawOrder): Promise<GraphqlLine[]> {
  const lines: GraphqlLine[] = [];
  let page = order.lineItems.pageInfo;
  while (page.hasNextPage && page.endCursor) {
    const data = await client.graphql<{ order: { lineItems: Page<unknown> } | null }>(MORE_LINES, {
      id: order.id,
      after: page.endCursor,
      lines: 100,
    });
    if (!data.order) break;
    lines.push(...parseGraphqlLines(data.order.lineItems.nodes));
    page = data.order.lineItems.pageInfo;
  }
  return lines;
}
