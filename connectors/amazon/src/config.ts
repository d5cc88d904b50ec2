import { z } from 'zod';

/** Amazon's marketplace ids: 10 to 14 upper-case letters and digits (ATVPDKIKX0DER, A1PA6795UKMFR9). */
const MARKETPLACE_ID = /^[A-Z0-9]{10,14}$/;
const marketplaceList = z
  .string()
  .trim()
  .transform((v) => [
    ...new Set(
      v
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean),
    ),
  ])
  .pipe(
    z
      .array(
        z
          .string()
          .regex(MARKETPLACE_ID, 'must be Amazon marketplace ids separated by commas (ATVPDKIKX0DER,A2EUQ1WTGCTBG2)'),
      )
      .min(1, 'must name at least one marketplace')
      .max(50),
  );

const origin = z.url({ protocol: /^https$/ }).transform((v) => v.replace(/\/+$/, ''));

export const settingsSchema = z.object({
  appId: z
    .string()
    .trim()
    .regex(
      /^amzn1\.sp\.solution\.[A-Za-z0-9-]+$/,
      'must be the app id from the Solution Provider Portal (amzn1.sp.solution.…)',
    )
    .optional()
    .meta({
      description:
        "The app's id (amzn1.sp.solution.…) from the Solution Provider Portal (Develop apps): the `application_id` of the Seller Central consent page; needed for install links only",
    }),
  lwaClientId: z.string().trim().min(1).optional().meta({
    description:
      "Login with Amazon client id of the app (amzn1.application-oa2-client.…), from the app's LWA credentials in the Solution Provider Portal; every Amazon flow needs it",
  }),
  lwaClientSecret: z.string().trim().min(1).optional().meta({
    description:
      'Login with Amazon client secret of the app (Amazon makes you rotate it every 180 days; refresh tokens survive rotation); every Amazon flow needs it',
  }),
  apiUrl: origin.default('https://sellingpartnerapi-na.amazon.com').meta({
    description:
      "Selling Partner API origin of the sellers' region (-na, -eu or -fe); point it at the sandbox or a local fake",
  }),
  lwaUrl: origin
    .default('https://api.amazon.com')
    .meta({ description: 'Login with Amazon origin (its token endpoint is /auth/o2/token)' }),
  marketplaceIds: z.string().default('ATVPDKIKX0DER').pipe(marketplaceList).meta({
    description: 'Marketplaces read when the seller chooses none, comma-separated (ATVPDKIKX0DER = Amazon.com)',
  }),
  sellerCentralUrl: origin.default('https://sellercentral.amazon.com').meta({
    description:
      "Seller Central origin of the sellers' region, where the consent page is (sellercentral-europe.amazon.com for the EU)",
  }),
  draftApp: z.enum(['true', 'false']).default('false').meta({
    description:
      'true while the app is a draft in the Solution Provider Portal (the consent link then carries version=beta)',
  }),
});
export type AmazonSettings = z.output<typeof settingsSchema>;

/**
 * `POST /stores {platform: "AMAZON", ...}`: a seller's self-authorisation of a private app (Seller Central > Apps >
 * Develop apps > Authorize).
 */
export const connectSchema = z.strictObject({
  sellingPartnerId: z
    .string()
    .trim()
    .regex(
      /^A[A-Z0-9]{9,20}$/,
      "must be the seller's merchant token (A…, Seller Central > Settings > Account Info > Merchant Token)",
    ),
  refreshToken: z
    .string()
    .trim()
    .regex(/^Atzr\|\S{10,}$/, 'must be a Login with Amazon refresh token (Atzr|…)'),
  marketplaceIds: z
    .union([z.string(), z.array(z.string())])
    .transform((v) => (Array.isArray(v) ? v.join(',') : v))
    .pipe(marketplaceList)
    .optional()
    .meta({
      description:
        "The marketplaces to read orders from, comma-separated or a list (ATVPDKIKX0DER is Amazon.com); left out, this service's default",
    }),
});

/**
 * The install link's fields: the marketplaces the seller chooses (comma-separated; the operator's default when absent).
 */
export const installInputSchema = z.strictObject({
  marketplaceIds: z
    .string()
    .pipe(marketplaceList)
    .transform((ids) => ids.join(','))
    .optional()
    .meta({
      description:
        "The marketplaces to read orders from, comma-separated (ATVPDKIKX0DER is Amazon.com); left empty, this service's default",
    }),
});

export const credentialsSchema = z.object({
  sellingPartnerId: z.string(),
  refreshToken: z.string(),
  accessToken: z.string().nullable(),
  accessTokenExpiresAt: z.string().nullable(),
  marketplaceIds: z.array(z.string()).min(1),
  /** When the seller authorised us: Amazon asks for a renewal every 365 days. */
  authorizedAt: z.string(),
});
export type AmazonCredentials = z.infer<typeof credentialsSchema>;

/** Renew the access token (it lives an hour) this long before it expires. */
export const REFRESH_MARGIN_MS = 5 * 60_000;
/** Amazon asks sellers to renew an app's authorisation every 365 days; the store shows the date. */
export const AUTHORIZATION_DAYS = 365;
/** searchOrders: one call every 3 minutes per seller (0.0056 rps), a burst of 20. */
export const SEARCH_ORDERS_BUDGET = { burst: 20, refillMs: 180_000 };
/** How far back the first poll of a store looks (open orders of the last two weeks). */
export const FIRST_POLL_LOOKBACK_MS = 14 * 24 * 3600_000;
/** Each run asks again from this long before the checkpoint (orders indexed late). */
export const POLL_OVERLAP_MS = 5 * 60_000;
/**
 * How far behind the request time Amazon's order index may be: `createdBefore`/`lastUpdatedBefore`
 * must be at least two minutes in the past. Where a searchOrders page omits its (optional)
 * `lastUpdatedBefore`, the checkpoint moves to the request time minus this.
 */
export const SEARCH_LAG_MS = 2 * 60_000;
/** The statuses of orders we print: paid (ready to ship), not yet (wholly) shipped. */
export const OPEN_STATUSES = ['UNSHIPPED', 'PARTIALLY_SHIPPED'] as const;
/** Cancellations are read in the same call (an order cancelled before shipping must cancel ours). */
export const SEARCH_STATUSES = [...OPEN_STATUSES, 'CANCELLED'] as const;
export const INCLUDED_DATA = ['RECIPIENT', 'FULFILLMENT', 'BUYER'] as const;
export const ORDERS_PAGE_SIZE = 100;
/** Listings Items API: at most 20 items a page. */
export const LISTINGS_PAGE_SIZE = 20;
