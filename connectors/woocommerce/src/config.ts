import { z } from 'zod';

/** WooCommerce's REST namespace we speak (the webhooks' payloads are this version's order JSON). */
export const WC_API_VERSION = 'wc/v3';

/** The topics we subscribe to; `order.created` and `order.updated` both fire for one checkout. */
export const ORDER_TOPICS = ['order.created', 'order.updated'] as const;

/** The catalogue topics: the store's listings are synced again soon after one. */
export const PRODUCT_TOPICS = ['product.created', 'product.updated', 'product.deleted'] as const;

/** Every topic our webhooks subscribe to. */
export const SUBSCRIBED_TOPICS = [...ORDER_TOPICS, ...PRODUCT_TOPICS] as const;

/** How far back the first poll of a new store looks: orders older than the connection are not ours to print. */
export const FIRST_POLL_LOOKBACK_MS = 60 * 60 * 1000;

/** Orders per polling page (WooCommerce allows up to 100). */
export const POLL_PAGE_SIZE = 50;

/** The name our webhooks carry in the store's admin (WooCommerce > Settings > Advanced > Webhooks). */
export const WEBHOOK_NAME_PREFIX = 'Print API';

/**
 * A store URL: HTTPS only (keys travel as Basic credentials, which WooCommerce refuses over
 * plain HTTP anyway), normalised to scheme + host + path without a trailing slash so the
 * same store is always the same `externalId`.
 */
export const storeUrlSchema = z
  .url({ protocol: /^https$/, message: 'must be an https URL (WooCommerce keys are only sent over HTTPS)' })
  .max(2048)
  .transform(normaliseStoreUrl);

export function normaliseStoreUrl(raw: string): string {
  const url = new URL(raw);
  const path = url.pathname.replace(/\/+$/, '');
  return `${url.protocol}//${url.host.toLowerCase()}${path}`;
}

/** `ck_` / `cs_` followed by 40 hex digits: what WooCommerce issues (`wc_rand_hash()` is a SHA-1). */
const consumerKey = z
  .string()
  .trim()
  .regex(/^ck_[0-9a-f]{40}$/, 'must be a WooCommerce consumer key (ck_ followed by 40 hex digits)');
const consumerSecret = z
  .string()
  .trim()
  .regex(/^cs_[0-9a-f]{40}$/, 'must be a WooCommerce consumer secret (cs_ followed by 40 hex digits)');

/** `POST /stores {platform: "WOOCOMMERCE", storeUrl, consumerKey, consumerSecret}`. */
export const connectSchema = z.strictObject({ storeUrl: storeUrlSchema, consumerKey, consumerSecret });

/** What core keeps sealed for a connected store. */
export const credentialsSchema = z.object({
  storeUrl: z.string(),
  consumerKey: z.string(),
  consumerSecret: z.string(),
});
export type WooCredentials = z.infer<typeof credentialsSchema>;

/**
 * The body WooCommerce POSTs to our `callback_url` once the merchant approves our app
 * (`WC_Auth::post_consumer_data`): `user_id` is echoed back exactly as we sent it.
 */
export const issuedKeysSchema = z.object({
  key_id: z.union([z.number(), z.string()]),
  user_id: z.union([z.string(), z.number()]).transform(String),
  consumer_key: consumerKey,
  consumer_secret: consumerSecret,
  key_permissions: z.enum(['read', 'write', 'read_write']),
});
export type IssuedKeys = z.infer<typeof issuedKeysSchema>;
