import { z } from 'zod';

/** Etsy's consent screen (not a setting: the merchant's browser goes there, we never call it). */
export const CONSENT_URL = 'https://www.etsy.com/oauth/connect';

/**
 * What a print connector needs, per Etsy's Open API v3 document: receipts (`transactions_r`),
 * tracking (`transactions_w`), the user's shop (`shops_r`), the shop's listings with their
 * inventory SKUs (`listings_r`, for `getListingsByShop`), and publishing listings (`listings_w`).
 */
export const SCOPES = ['transactions_r', 'transactions_w', 'shops_r', 'listings_r', 'listings_w'] as const;
/** The scope publishing needs (`createDraftListing`, `updateListing`, `updateListingInventory`). */
export const PUBLISHING_SCOPE = 'listings_w';
/** The scope without which the listings (and so the links and guards from them) cannot be read. */
export const LISTINGS_SCOPE = 'listings_r';
/** What the install asked for before listings were read: stores connected then have no `scopes` recorded. */
export const FIRST_SCOPES = ['transactions_r', 'transactions_w', 'shops_r'] as const;

/** Access tokens live an hour: renewed this long before they expire. */
export const REFRESH_MARGIN_MS = 10 * 60_000;

/** How far back the first poll of a new shop looks: receipts older than the connection are not ours to print. */
export const FIRST_POLL_LOOKBACK_MS = 60 * 60_000;

/**
 * Each run of the poll starts this long before the newest change it read: Etsy's
 * `min_last_modified` search can show a receipt late, and offset paging over a moving sort
 * can skip one (duplicates are harmless: an order is stored once).
 */
export const POLL_OVERLAP_MS = 5 * 60_000;

/** Receipts and listings per page (Etsy allows 1-100). */
export const PAGE_SIZE = 100;

/** `whsec_<base64>`: Standard Webhooks' secret format, as Etsy's webhook portal shows it. */
const webhookSecrets = z
  .string()
  .trim()
  .transform((s) => s.split(/[\s,]+/).filter(Boolean))
  .pipe(
    z
      .array(
        z
          .string()
          .regex(
            /^whsec_[A-Za-z0-9+/]+={0,2}$/,
            'must be a whsec_… signing secret (several separated by spaces or commas during a rotation)',
          ),
      )
      .min(1),
  );

export const settingsSchema = z.object({
  keystring: z.string().trim().min(1).meta({
    description:
      "Etsy: the app's keystring (Your apps > the app > Keystring); the OAuth client_id and the first half of x-api-key",
  }),
  sharedSecret: z.string().trim().min(1).meta({
    description:
      "Etsy: the app's shared secret (Your apps > the app > Shared secret); sent as x-api-key `<keystring>:<shared secret>` on every call",
  }),
  webhookSecret: webhookSecrets.optional().meta({
    description:
      "Etsy: the webhook endpoint's signing secret (whsec_…, from the app's webhook portal); several, space-separated, during a rotation. Unset: order webhooks are refused and shops are polled only",
  }),
  defaultTaxonomyId: z.coerce.number().int().positive().optional().meta({
    description:
      'Etsy: the seller taxonomy id a published listing gets when the draft names none (`platformOptions.taxonomyId`); Etsy requires one (e.g. 2078 for Prints)',
  }),
  defaultWhoMade: z.enum(['i_did', 'someone_else', 'collective']).default('i_did').meta({
    description:
      'Etsy: who_made of published listings when the draft does not say (`platformOptions.whoMade`): i_did (the seller designs it, made to order), someone_else or collective',
  }),
  defaultWhenMade: z.enum(['made_to_order', '2020_2026', '2010_2019']).default('made_to_order').meta({
    description:
      'Etsy: when_made of published listings when the draft does not say (`platformOptions.whenMade`); printed on demand: made_to_order',
  }),
  apiUrl: z
    .url({ protocol: /^https$/ })
    .default('https://openapi.etsy.com')
    .transform((u) => u.replace(/\/+$/, ''))
    .meta({ description: "Etsy: Open API v3's origin (token endpoint, receipts, listings)" }),
});
export type EtsySettings = z.output<typeof settingsSchema>;

/** What core keeps sealed for a connected shop. */
export const credentialsSchema = z.object({
  shopId: z.string(),
  userId: z.string(),
  accessToken: z.string(),
  /** ISO 8601. */
  accessTokenExpiresAt: z.string(),
  refreshToken: z.string(),
  /**
   * The OAuth scopes the grant carries, as far as we know them (Etsy's token answer does not say):
   * those the install asked for, or those a pasted refresh token showed. Absent for stores
   * connected before the install asked for `listings_r` (they have FIRST_SCOPES).
   */
  scopes: z.array(z.string()).optional(),
});
export type EtsyCredentials = z.infer<typeof credentialsSchema>;

/**
 * `POST /stores {platform: "ETSY", refreshToken}`: a shop connected with a refresh token its
 * owner obtained for this app (a personal-access app's own shop); merchants use the install link.
 */
export const connectSchema = z.strictObject({
  refreshToken: z.string().trim().min(10, 'must be an Etsy OAuth refresh token (issued to this app)').max(2048),
});
