import { z } from 'zod';

/** The Admin API version we speak (GraphQL and webhook payloads); supported by Shopify until October 2027. */
export const API_VERSION = '2026-01';

/**
 * What we ask the merchant for: read orders and products (the listings), fulfil the merchant's own fulfillment orders.
 */
export const SCOPES = [
  'read_orders',
  'read_products',
  'read_merchant_managed_fulfillment_orders',
  'write_merchant_managed_fulfillment_orders',
] as const;

/**
 * What publishing listings needs besides: create and change products, find the Online Store's
 * publication and publish to it. Asked at install; a custom app connects without them, and
 * publishing names the ones its token lacks.
 */
export const PUBLISHING_SCOPES = ['write_products', 'read_publications', 'write_publications'] as const;

/** The order topics we subscribe to, as the `X-Shopify-Topic` header names them. */
export const ORDER_TOPICS = ['orders/create', 'orders/paid', 'orders/updated', 'orders/cancelled'] as const;

/** The catalogue topics: the store's listings are synced again soon after one. */
export const PRODUCT_TOPICS = ['products/create', 'products/update', 'products/delete'] as const;

/** Topics registered per store (GraphQL enum names). Compliance topics are app-level: see README. */
export const SUBSCRIBED_TOPICS = [
  'ORDERS_CREATE',
  'ORDERS_PAID',
  'ORDERS_UPDATED',
  'ORDERS_CANCELLED',
  'PRODUCTS_CREATE',
  'PRODUCTS_UPDATE',
  'PRODUCTS_DELETE',
  'APP_UNINSTALLED',
] as const;

/**
 * Shopify retries a failed delivery 8 times over 4 hours with the original payload and
 * `X-Shopify-Triggered-At`; anything older than this (or from the future) is a replay.
 */
export const MAX_DELIVERY_AGE_MS = 5 * 60 * 60 * 1000;
export const MAX_CLOCK_SKEW_MS = 5 * 60 * 1000;

/** How far back the first poll of a new store looks: older orders are not ours to print. */
export const FIRST_POLL_LOOKBACK_MS = 60 * 60 * 1000;

/** Orders per polling page and lines per order: keeps a page's requested cost under ~800 points. */
export const POLL_PAGE_SIZE = 10;
export const LINES_PAGE_SIZE = 25;

/** Variants per listings page (a cost of about 1 point each; Shopify allows 250). */
export const LISTINGS_PAGE_SIZE = 100;

/** Renew an expiring access token this long before it expires (Shopify's tokens live 60 minutes). */
export const REFRESH_MARGIN_MS = 5 * 60 * 1000;

/**
 * A shop's permanent domain. Accepts what merchants paste (`tulip-prints`,
 * `https://tulip-prints.myshopify.com/admin`) and normalises it to `tulip-prints.myshopify.com`,
 * the store's `externalId`.
 */
export const shopDomainSchema = z
  .string()
  .trim()
  .toLowerCase()
  .transform((v) => v.replace(/^https?:\/\//, '').replace(/\/.*$/, ''))
  .transform((v) => (v.includes('.') ? v : `${v}.myshopify.com`))
  .pipe(
    z.string().regex(/^[a-z0-9][a-z0-9-]*\.myshopify\.com$/, 'must be a shop domain like your-store.myshopify.com'),
  );

/**
 * `POST /stores {platform: "SHOPIFY", shop, accessToken, apiSecretKey?}`: a custom app the
 * merchant created in their admin (Settings > Apps > Develop apps). Its webhooks are signed
 * with that app's API secret key: without it the store is polled only.
 */
export const connectSchema = z.strictObject({
  shop: shopDomainSchema,
  accessToken: z
    .string()
    .trim()
    .regex(/^shpat_[A-Za-z0-9]{16,}$/, 'must be an Admin API access token (shpat_…)'),
  apiSecretKey: z.string().trim().min(16).max(200).optional(),
});
export type ConnectInput = z.infer<typeof connectSchema>;

/** `POST /connectors/shopify/install-links {shop}`: the store the OAuth install is for. */
export const installInputSchema = z.strictObject({ shop: shopDomainSchema });

const oauthCredentials = z.object({
  kind: z.literal('oauth'),
  shop: z.string(),
  accessToken: z.string(),
  scope: z.string(),
  /** ISO time the access token expires; null for a non-expiring token. */
  expiresAt: z.string().nullable(),
  refreshToken: z.string().nullable(),
  refreshTokenExpiresAt: z.string().nullable(),
});
const customAppCredentials = z.object({
  kind: z.literal('custom'),
  shop: z.string(),
  accessToken: z.string(),
  scope: z.string(),
});

/** What core keeps sealed for a connected store. */
export const credentialsSchema = z.discriminatedUnion('kind', [oauthCredentials, customAppCredentials]);
export type ShopifyCredentials = z.infer<typeof credentialsSchema>;
export type OAuthCredentials = z.infer<typeof oauthCredentials>;

/** Where a shop's Admin API and OAuth pages live: `{shop}` is its myshopify.com domain. */
export const DEFAULT_API_URL = 'https://{shop}';

const shopOriginTemplate = z
  .string()
  .trim()
  .transform((v) => v.replace(/\/+$/, ''))
  .refine(
    (v) => {
      const url = URL.parse(v.replaceAll('{shop}', 'example.myshopify.com'));
      return url?.protocol === 'https:' && !url.search && !url.hash;
    },
    {
      message:
        "must be an https URL, {shop} standing for the shop's domain (e.g. https://shopify-sandbox.example.com/{shop})",
    },
  );

/**
 * The app's settings (`CONNECTOR_SHOPIFY_*`). The key and secret are our public app's
 * (Partner Dashboard > Apps > Client credentials): only OAuth installs, token refreshes and
 * app-signed webhooks (the compliance topics) need them. A merchant's custom app connects
 * without them (`POST /stores` with its own token and secret), so they are optional and the
 * flows that need them say which variable is missing.
 */
export const settingsSchema = z.object({
  apiKey: z
    .string()
    .trim()
    .min(1)
    .optional()
    .meta({ description: 'Client ID of the Shopify app; needed for OAuth installs (custom apps connect without it)' }),
  apiSecret: z.string().trim().min(1).optional().meta({
    description:
      'Client secret of the Shopify app: OAuth installs, token refreshes and app-signed webhooks (compliance topics)',
  }),
  apiUrl: shopOriginTemplate.default(DEFAULT_API_URL).meta({
    description:
      "Origin of each shop's Admin API and OAuth pages, `{shop}` standing for the shop's myshopify.com domain; point it at a sandbox or a local fake",
  }),
});
export type ShopifySettings = z.output<typeof settingsSchema>;

/** The origin of `shop`'s Admin API and OAuth pages under these settings. */
export function shopOrigin(settings: Pick<ShopifySettings, 'apiUrl'>, shop: string): string {
  return settings.apiUrl.replaceAll('{shop}', shop);
}

/** Which of `required` (by default: what connecting needs) a granted scope list lacks (`write_x` implies `read_x`). */
export function missingScopes(granted: string, required: readonly string[] = SCOPES): string[] {
  const have = new Set(
    granted
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
  );
  return required.filter((s) => !have.has(s) && !(s.startsWith('read_') && have.has(`write_${s.slice(5)}`)));
}
