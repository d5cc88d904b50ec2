import {
  ConnectorError,
  type ListingChanges,
  type ListingDraft,
  type ListingRef,
  type PublishedListing,
} from '@print-api/connector-kit';
import { hideV1, publishV1, updateV1 } from './publishing-v1.ts';
import { hideV3, publishV3, updateV3 } from './publishing-v3.ts';
import { siteCatalog } from './site.ts';
import type { WixClient } from './wix-client.ts';

/**
 * The catalogue a listing is written in: a site runs Wix Stores Catalog V1 or V3 (the two take
 * different calls), asked before each write. A site without Wix Stores is refused with the reason
 * before anything is written.
 */
async function writableCatalog(client: WixClient): Promise<'v1' | 'v3'> {
  const catalog = await siteCatalog(client);
  if (catalog === 'none')
    throw new ConnectorError(
      'invalid_payload',
      'The Wix site has no Wix Stores: add Wix Stores to the site, then publish again.',
    );
  return catalog;
}

/** Creates the product, visible or hidden, with the SKU, the price (in the site's currency) and the images. */
export async function publishWixListing(client: WixClient, draft: ListingDraft): Promise<PublishedListing> {
  return (await writableCatalog(client)) === 'v1' ? publishV1(client, draft) : publishV3(client, draft);
}

/** Name, price and visibility: only the fields given change. */
export async function updateWixListing(
  client: WixClient,
  ref: ListingRef,
  changes: ListingChanges,
): Promise<PublishedListing> {
  if (changes.title === undefined && changes.priceCents === undefined && changes.published === undefined)
    throw new ConnectorError('invalid_payload', 'Nothing to change: give a title, a price or whether it is published');
  return (await writableCatalog(client)) === 'v1' ? updateV1(client, ref, changes) : updateV3(client, ref, changes);
}

/**
 * Hides the product (`visible: false`) instead of deleting it: past orders keep pointing at it
 * (their `catalogReference`), and the merchant can show it again from the dashboard. A product
 * already gone (deleted, or Wix Stores removed from the site with it) is not an error.
 */
export async function unpublishWixListing(client: WixClient, ref: ListingRef): Promise<void> {
  const catalog = await siteCatalog(client);
  if (catalog === 'v1') await hideV1(client, ref);
  else if (catalog === 'v3') await hideV3(client, ref);
}
