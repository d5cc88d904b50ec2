import { parsePayload, type ListingsPage } from '@print-api/connector-kit';
import { z } from 'zod';
import { ITEMS_PAGE } from './config.ts';
import type { EbayClient } from './ebay-client.ts';

const itemsPage = z.object({
  inventoryItems: z
    .array(
      z.object({
        sku: z.string(),
        product: z.object({ title: z.string().nullish() }).nullish(),
        availability: z
          .object({ shipToLocationAvailability: z.object({ quantity: z.number().nullish() }).nullish() })
          .nullish(),
      }),
    )
    .nullish(),
  total: z.number().nullish(),
  next: z.string().nullish(),
});

/**
 * The seller's inventory items (`getInventoryItems`, offset paging): one listing per SKU, its id the SKU itself (an
 * inventory item has no listing id of its own, and order lines carry the SKU), on sale while it has quantity to sell.
 * Listings made in Seller Hub without the Inventory API are not inventory items: eBay shows them only once migrated.
 */
export async function listInventoryItems(client: EbayClient, cursor: string | null): Promise<ListingsPage> {
  const offset = cursor && /^\d+$/.test(cursor) ? Number(cursor) : 0;
  const page = parsePayload(
    itemsPage,
    await client.call({
      method: 'GET',
      path: '/sell/inventory/v1/inventory_item',
      query: { limit: ITEMS_PAGE, offset },
      operation: 'getInventoryItems',
    }),
    'eBay inventory items',
  );
  const items = page.inventoryItems ?? [];
  const read = offset + items.length;
  return {
    listings: items.map((i) => ({
      externalProductId: i.sku,
      externalVariantId: null,
      sku: i.sku,
      title: i.product?.title?.trim() || i.sku,
      active: (i.availability?.shipToLocationAvailability?.quantity ?? 0) > 0,
    })),
    nextCursor: items.length > 0 && (page.next || (page.total != null && read < page.total)) ? String(read) : null,
  };
}
