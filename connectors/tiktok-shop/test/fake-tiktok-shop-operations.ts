import { randomBytes, randomInt } from 'node:crypto';
import type { FakeReply } from '@print-api/connector-kit/testing';
import type { FakeShop } from './fake-tiktok-shop.ts';
import errors from './fixtures/errors.json' with { type: 'json' };
import providersFixture from './fixtures/shipping-providers.json' with { type: 'json' };

// The shop APIs the fake answers once a call passed TikTok's checks (app key, timestamp, signature, token, shop):
// webhooks, order search and detail, shipping providers, packages (with TikTok's checks) and product search.

/** A 19-digit id like TikTok's (beyond 2^53: it must stay a string all the way). */
export const tiktokId = (): string =>
  `7${String(randomInt(1e9)).padStart(9, '0')}${String(randomInt(1e9)).padStart(9, '0')}`;

export const rid = () => `2026${randomBytes(14).toString('hex').toUpperCase()}`;
export const ok = (data: unknown): FakeReply => [200, { code: 0, message: 'Success', request_id: rid(), data }];

/** The answer of `shop`'s API at `method path`, or null when TikTok has no such API. */
export function shopOperation(
  method: string,
  path: string,
  q: Record<string, string>,
  body: string,
  shop: FakeShop,
): FakeReply | null {
  const json = () => (body ? (JSON.parse(body) as Record<string, unknown>) : {});

  if (method === 'PUT' && path === '/event/202309/webhooks') {
    const { event_type, address } = json() as { event_type?: string; address?: string };
    if (!event_type || !address || address.length > 255)
      return [200, { code: 36009004, message: 'param body.address is invalid', request_id: rid(), data: {} }];
    shop.webhooks.set(event_type, address);
    return ok({});
  }
  if (method === 'POST' && path === '/order/202309/orders/search') {
    const filter = json() as { update_time_ge?: number; order_status?: string };
    const size = Number(q.page_size);
    if (!(size >= 1 && size <= 100))
      return [200, { code: 36009004, message: 'param page_size is invalid', request_id: rid(), data: {} }];
    const all = [...shop.orders.values()]
      .filter(
        (o) =>
          (filter.update_time_ge === undefined || o.update_time >= filter.update_time_ge) &&
          (!filter.order_status || o.status === filter.order_status),
      )
      .sort((a, b) => a.update_time - b.update_time || (a.id < b.id ? -1 : 1));
    const offset = q.page_token ? Number(Buffer.from(q.page_token, 'base64url').toString()) : 0;
    const page = all.slice(offset, offset + size);
    const more = offset + size < all.length;
    return ok({
      next_page_token: more ? Buffer.from(String(offset + size)).toString('base64url') : '',
      total_count: all.length,
      orders: page,
    });
  }
  if (method === 'GET' && path === '/order/202309/orders') {
    const ids = (q.ids ?? '').split(',').filter(Boolean);
    if (ids.length === 0 || ids.length > 50)
      return [200, { code: 36009004, message: 'param ids is invalid', request_id: rid(), data: {} }];
    return ok({ orders: ids.flatMap((id) => (shop.orders.has(id) ? [shop.orders.get(id)!] : [])) });
  }
  const providers = /^\/logistics\/202309\/delivery_options\/(\d+)\/shipping_providers$/.exec(path);
  if (method === 'GET' && providers) return ok(providersFixture.data);
  const packages = /^\/fulfillment\/202309\/orders\/(\d+)\/packages$/.exec(path);
  if (method === 'POST' && packages) {
    shop.pushAttempts.push(Date.now());
    const wait = shop.rateLimits.shift();
    if (wait !== undefined)
      return [429, { ...errors.tooManyRequests, request_id: rid() }, { 'Retry-After': String(wait) }];
    const order = shop.orders.get(packages[1]!);
    if (!order) return [200, { code: 21011001, message: 'order not found', request_id: rid(), data: {} }];
    const b = json() as { tracking_number?: string; shipping_provider_id?: string; order_line_item_ids?: string[] };
    if (!b.tracking_number || !providersFixture.data.shipping_providers.some((p) => p.id === b.shipping_provider_id))
      return [
        200,
        { code: 21011002, message: 'invalid tracking_number or shipping_provider_id', request_id: rid(), data: {} },
      ];
    const ids = b.order_line_item_ids ?? [];
    const units = ids.map((id) => order.line_items.find((l) => l.id === id));
    if (ids.length === 0 || units.some((u) => !u || u.display_status !== 'AWAITING_SHIPMENT'))
      return [
        200,
        {
          code: 21011003,
          message: 'order_line_item_ids contain a line that cannot be shipped',
          request_id: rid(),
          data: {},
        },
      ];
    const packageId = tiktokId();
    for (const u of units)
      Object.assign(u!, {
        display_status: 'AWAITING_COLLECTION',
        package_id: packageId,
        tracking_number: b.tracking_number,
        shipping_provider_id: b.shipping_provider_id,
      });
    const left = order.line_items.some((l) => l.display_status === 'AWAITING_SHIPMENT');
    order.status = left ? 'PARTIALLY_SHIPPING' : 'AWAITING_COLLECTION';
    order.update_time = Math.floor(Date.now() / 1000);
    shop.packages.push({
      orderId: order.id,
      tracking_number: b.tracking_number,
      shipping_provider_id: b.shipping_provider_id!,
      order_line_item_ids: ids,
      package_id: packageId,
    });
    return ok({ order_id: order.id, order_line_item_ids: ids, package_id: packageId });
  }
  if (method === 'POST' && path === '/product/202309/products/search') {
    const size = Number(q.page_size);
    const offset = q.page_token ? Number(Buffer.from(q.page_token, 'base64url').toString()) : 0;
    const page = shop.products.slice(offset, offset + size);
    const more = offset + size < shop.products.length;
    return ok({
      next_page_token: more ? Buffer.from(String(offset + size)).toString('base64url') : '',
      total_count: shop.products.length,
      products: page,
    });
  }
  return null;
}
