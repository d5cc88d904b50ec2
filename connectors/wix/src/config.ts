import { createPublicKey } from 'node:crypto';
import { z } from 'zod';

/** The order events we act on (the envelope's `eventType`). */
export const ORDER_EVENTS = {
  approved: 'wix.ecom.v1.order_approved',
  paymentStatusUpdated: 'wix.ecom.v1.order_payment_status_updated',
  updated: 'wix.ecom.v1.order_updated',
  canceled: 'wix.ecom.v1.order_canceled',
} as const;

/** The App Instance Removed event: the merchant removed our app from the site. */
export const APP_REMOVED_EVENT = 'AppRemoved';

/** The catalogue events (Wix Stores, catalog V1 and V3): the site's listings are synced again soon after one. */
export const PRODUCT_EVENTS = [
  'wix.stores.catalog.v1.product_created',
  'wix.stores.catalog.v1.product_changed',
  'wix.stores.catalog.v1.product_deleted',
  'wix.stores.catalog.v3.product_created',
  'wix.stores.catalog.v3.product_updated',
  'wix.stores.catalog.v3.product_deleted',
] as const;

/** The issuer Wix's webhook JWTs carry (checked when the claim is present, as the official SDK does). */
export const JWT_ISSUER = 'wix.com';

/**
 * Wix resends a failed webhook 12 times over about 47 hours, out of order. An event older than
 * this is a replay of a captured delivery, refused like a forgery.
 */
export const MAX_EVENT_AGE_MS = 72 * 60 * 60 * 1000;
export const MAX_CLOCK_SKEW_MS = 5 * 60 * 1000;

/** How far back the first poll of a new site looks: older orders are not ours to print. */
export const FIRST_POLL_LOOKBACK_MS = 60 * 60 * 1000;

/** Orders per search page (Wix allows up to 100). */
export const POLL_PAGE_SIZE = 50;

/** Products per listings page (Wix allows up to 100). */
export const LISTINGS_PAGE_SIZE = 100;

/** Mint a new access token this long before the cached one expires (Wix's live about 4 hours). */
export const TOKEN_MARGIN_MS = 5 * 60 * 1000;

/** Wix allows 200 requests a minute per app instance (site). */
export const RATE_LIMIT = { max: 200, durationMs: 60_000 } as const;

/**
 * Shipping providers Wix knows (it builds their tracking links itself); anything else is a custom provider with our
 * link.
 */
export const KNOWN_PROVIDERS = ['fedex', 'ups', 'usps', 'dhl', 'canadaPost'] as const;

/** An instance id, a site's installation of our app: a GUID. */
export const instanceIdSchema = z
  .string()
  .trim()
  .toLowerCase()
  .regex(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/, 'must be a Wix instance id (a GUID)');

/**
 * `POST /stores {platform: "WIX"}` has nothing a merchant could paste that proves a site is
 * theirs (our app's token works for every site that installed it): Wix sites connect through
 * the install link only. The schema documents that; `connect` refuses with the way to go.
 */
export const connectSchema = z.strictObject({
  instanceId: instanceIdSchema.meta({
    description: 'Not accepted here: connect a Wix site with POST /stores/install-links {platform: "WIX"}',
  }),
});

/** The install link takes no fields: the merchant picks the site in Wix's installer. */
export const installInputSchema = z.strictObject({});

/** What core keeps sealed for a connected site: its instance, and the last access token minted for it. */
export const credentialsSchema = z.object({
  instanceId: z.string(),
  accessToken: z.string().nullable(),
  /** ISO time the access token expires. */
  expiresAt: z.string().nullable(),
});
export type WixCredentials = z.infer<typeof credentialsSchema>;

const httpsOrigin = (example: string) =>
  z
    .string()
    .trim()
    .transform((v) => v.replace(/\/+$/, ''))
    .refine((v) => {
      const url = URL.parse(v);
      return url?.protocol === 'https:' && !url.search && !url.hash;
    }, `must be an https URL (e.g. ${example})`);

const pem = z
  .string()
  .trim()
  // Operators often store a PEM in one line with literal \n.
  .transform((v) => v.replace(/\\n/g, '\n'))
  .refine((v) => {
    try {
      return createPublicKey(v).asymmetricKeyType === 'rsa';
    } catch {
      return false;
    }
  }, 'must be the RSA public key of the app in PEM (-----BEGIN PUBLIC KEY-----…)');

/**
 * The app's settings (`CONNECTOR_WIX_*`), from the app dashboard at dev.wix.com: the app id
 * and secret (More Actions > View ID & keys) mint every site's tokens; the public key
 * (Webhooks > Get Public Key) verifies the signed webhook bodies.
 */
export const settingsSchema = z.object({
  appId: z
    .string()
    .trim()
    .min(1)
    .meta({ description: 'App ID of the Wix app (app dashboard > More Actions > View ID & keys)' }),
  appSecret: z
    .string()
    .trim()
    .min(1)
    .meta({ description: "App secret of the Wix app: mints each site's client-credentials access tokens" }),
  publicKey: pem.meta({
    description:
      "The Wix app's public key (PEM, `\\n` accepted for line breaks): verifies the RS256-signed webhook bodies (app dashboard > Webhooks > Get Public Key)",
  }),
  apiUrl: httpsOrigin('https://www.wixapis.com')
    .default('https://www.wixapis.com')
    .meta({ description: "Origin of Wix's REST APIs and token endpoint; point it at a local fake in tests" }),
  installerUrl: z
    .url({ protocol: /^https$/ })
    .default('https://www.wix.com/installer/install')
    .meta({ description: "Wix's app installer, where install links send the merchant (the external install flow)" }),
});
export type WixSettings = z.output<typeof settingsSchema>;
