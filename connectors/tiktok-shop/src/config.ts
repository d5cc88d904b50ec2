import { z } from 'zod';

/** The Open API version we speak: orders, fulfilment, logistics, products, authorisation, events. */
export const API_VERSION = '202309';

/**
 * Where a seller authorises our app: the authorisation link Partner Center gives the app
 * (App & Service > Authorization), `service_id` naming our service. TikTok sends the seller back
 * to the redirect URL registered there (`{PUBLIC_URL}/connectors/tiktok-shop/callback`) with
 * `code` and our `state`.
 */
export const AUTHORIZE_URL = 'https://services.tiktokshop.com/open/authorize';

/** How far back the first poll of a new store looks: orders older than the connection are not ours to print. */
export const FIRST_POLL_LOOKBACK_MS = 60 * 60 * 1000;
/** Each polling run reads again this far before the newest change it saw (TikTok's search index lags writes). */
export const POLL_OVERLAP_MS = 2 * 60 * 1000;
/** Orders per search page (TikTok allows 1..100). */
export const POLL_PAGE_SIZE = 50;
/** Ids per order detail call (TikTok allows 50). */
export const DETAIL_BATCH = 50;
/** Products per listings page (TikTok allows 1..100). */
export const LISTINGS_PAGE_SIZE = 50;

/** Renew the access token this long before it expires (TikTok's live about 7 days). */
export const REFRESH_MARGIN_MS = 24 * 3600 * 1000;

/**
 * TikTok retries a delivery it got no 200 for over several hours (its schedule is not
 * documented); a delivery whose `timestamp` is older than this (or further in the future than
 * the skew) is a replay of a captured one.
 */
export const MAX_DELIVERY_AGE_MS = 24 * 3600 * 1000;
export const MAX_CLOCK_SKEW_MS = 5 * 60 * 1000;

/**
 * The webhook events a shop is subscribed to (`PUT /event/202309/webhooks`), with their numeric `type` in deliveries.
 */
export const EVENT_TYPES = {
  ORDER_STATUS_CHANGE: 1,
  PRODUCT_STATUS_CHANGE: 5,
  SELLER_DEAUTHORIZATION: 6,
  UPCOMING_AUTHORIZATION_EXPIRATION: 7,
} as const;

const origin = (fallback: string, description: string) =>
  z
    .string()
    .trim()
    .transform((v) => v.replace(/\/+$/, ''))
    .refine((v) => {
      const url = URL.parse(v);
      return url?.protocol === 'https:' && !url.search && !url.hash;
    }, 'must be an https origin (e.g. https://open-api.tiktokglobalshop.com)')
    .default(fallback)
    .meta({ description });

/**
 * The app's settings (`CONNECTOR_TIKTOK_SHOP_*`), from Partner Center: the app key and secret
 * (App & Service > your app > App credentials) and the service id of its authorisation link.
 */
export const settingsSchema = z.object({
  appKey: z
    .string()
    .trim()
    .min(1)
    .meta({ description: 'App key of the TikTok Shop app (Partner Center > App & Service > App credentials)' }),
  appSecret: z
    .string()
    .trim()
    .min(1)
    .meta({ description: 'App secret of the TikTok Shop app: signs every API call and verifies every webhook' }),
  serviceId: z
    .string()
    .trim()
    .regex(/^\d{1,20}$/, "must be the numeric service id of the app's authorisation link")
    .meta({
      description: "Service id of the app's authorisation link (Partner Center > App & Service > Authorization)",
    }),
  apiUrl: origin(
    'https://open-api.tiktokglobalshop.com',
    "Origin of TikTok Shop's Open API; point it at a local fake in tests",
  ),
  authUrl: origin(
    'https://auth.tiktok-shops.com',
    "Origin of TikTok Shop's token endpoints (/api/v2/token/get and /refresh)",
  ),
});
export type TikTokSettings = z.output<typeof settingsSchema>;

/** `POST /stores` has no fields that could connect a TikTok shop: it connects through the authorisation link. */
export const connectSchema = z.strictObject({});

/**
 * `POST /stores/install-links {platform: "TIKTOK_SHOP", shopId?}`: which shop to connect when the seller has several.
 */
export const installInputSchema = z.strictObject({
  shopId: z
    .string()
    .trim()
    .regex(/^\d{1,20}$/, 'must be the numeric id of a TikTok shop')
    .optional(),
});

/** What core keeps sealed for a connected shop. */
export const credentialsSchema = z.object({
  shopId: z.string(),
  shopCipher: z.string(),
  region: z.string(),
  accessToken: z.string(),
  /** ISO time the access token expires (null: TikTok did not say). */
  accessTokenExpiresAt: z.string().nullable(),
  refreshToken: z.string(),
  refreshTokenExpiresAt: z.string().nullable(),
  openId: z.string(),
  sellerName: z.string(),
});
export type TikTokCredentials = z.infer<typeof credentialsSchema>;
