import { ConnectorError, type DownloadedFile, type HttpClient } from '@print-api/connector-kit';
import type { EtsyClient } from './etsy-client.ts';

/** The image types Etsy lists (Shop Manager takes JPEG, PNG and GIF). */
export const ETSY_IMAGE_TYPES = ['image/jpeg', 'image/png', 'image/gif'] as const;
/** The largest image we download and send to Etsy. */
export const MAX_IMAGE_BYTES = 10 * 1024 * 1024;
/** Etsy keeps at most 10 images per listing ("Listings are only allowed 10 images"). */
export const MAX_LISTING_IMAGES = 10;
/** `alt_text`'s limit in Etsy's document ("Max length 500 characters"). */
const MAX_ALT_TEXT = 500;

/**
 * The product's images, downloaded through core's guard (https, public addresses only, redirects checked, at most
 * MAX_IMAGE_BYTES, JPEG, PNG or GIF by their bytes) before anything is made on Etsy: a URL that gives no image Etsy
 * lists fails the publish with its reason, and no draft is left behind.
 */
export async function downloadImages(http: HttpClient, urls: string[]): Promise<DownloadedFile[]> {
  if (urls.length > MAX_LISTING_IMAGES)
    throw new ConnectorError(
      'invalid_payload',
      `Etsy keeps at most ${MAX_LISTING_IMAGES} images per listing: give at most ${MAX_LISTING_IMAGES} imageUrls.`,
    );
  const files: DownloadedFile[] = [];
  for (const [i, url] of urls.entries()) {
    try {
      files.push(
        await http.download({ url, maxBytes: MAX_IMAGE_BYTES, accept: ETSY_IMAGE_TYPES, operation: 'downloadImage' }),
      );
    } catch (err) {
      if (!(err instanceof ConnectorError)) throw err;
      // The merchant's URL, not Etsy, failed: refused as such (a host that did not answer included), nothing made.
      throw new ConnectorError(
        'invalid_payload',
        `Etsy takes image files, and imageUrls[${i}] gives none: ${err.message}`,
        {
          cause: err,
        },
      );
    }
  }
  return files;
}

/**
 * Uploads the images to the draft (`uploadListingImage`, multipart: the file in `image`, `rank` from 1 in the order
 * given, the title as `alt_text`). Answers why one failed (the draft is kept: the merchant can add the image in Shop
 * Manager), or null when every one is on the listing.
 */
export async function uploadImages(
  client: EtsyClient,
  shopId: string,
  listingId: string,
  files: DownloadedFile[],
  altText: string,
): Promise<string | null> {
  for (const [i, file] of files.entries()) {
    try {
      await client.call({
        method: 'POST',
        path: `/shops/${shopId}/listings/${listingId}/images`,
        multipart: [
          { name: 'image', file: { bytes: file.bytes, filename: file.filename, contentType: file.contentType } },
          { name: 'rank', value: String(i + 1) },
          { name: 'alt_text', value: altText.slice(0, MAX_ALT_TEXT) },
        ],
        operation: 'uploadListingImage',
      });
    } catch (err) {
      if (!(err instanceof ConnectorError)) throw err;
      return `imageUrls[${i}] could not be uploaded (${err.message})`;
    }
  }
  return null;
}
