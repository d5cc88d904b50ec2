import { z } from 'zod';

const SCOPE = 'https://api.ebay.com/oauth/api_scope';
/**
 * What the install asks for (the `security` of each operation called, in the vendored contracts): orders and their
 * shipping fulfilments, inventory items and offers, the seller's business policies (read only) and who the seller is.
 */
export const SCOPES = [
  `${SCOPE}/sell.fulfillment`,
  `${SCOPE}/sell.inventory`,
  `${SCOPE}/sell.account.readonly`,
  `${SCOPE}/commerce.identity.readonly`,
] as const;
/** The application token's scope (client credentials): what the Notification API's getPublicKey needs. */
export const APP_SCOPE = SCOPE;

/** User access tokens live 2 hours: renewed this long before they expire. */
export const REFRESH_MARGIN_MS = 10 * 60_000;
/** eBay's refresh tokens live 18 months: the store's notices ask for a reconnect this long before the end. */
export const RENEWAL_NOTICE_MS = 30 * 24 * 3600_000;
/** How far back the first poll of a new store looks. */
export const FIRST_POLL_LOOKBACK_MS = 60 * 60_000;
/** Each run starts this long before the newest change read (eBay's search can show a change late). */
export const POLL_OVERLAP_MS = 5 * 60_000;
/** Orders per page (getOrders allows up to 200) and inventory items per page (getInventoryItems: up to 200). */
export const ORDERS_PAGE = 200;
export const ITEMS_PAGE = 100;

const origin = (fallback: string, description: string) =>
  z
    .url({ protocol: /^https$/ })
    .default(fallback)
    .transform((u) => u.replace(/\/+$/, ''))
    .meta({ description });

export const settingsSchema = z.object({
  clientId: z.string().trim().min(1).meta({
    description: "eBay: the app's Client ID (App ID) of the production keyset (developer.ebay.com > Application Keys)",
  }),
  clientSecret: z.string().trim().min(1).meta({
    description: "eBay: the app's Client Secret (Cert ID): HTTP Basic with the Client ID at the token endpoint",
  }),
  ruName: z.string().trim().min(1).optional().meta({
    description:
      "eBay: the app's RuName (eBay Redirect URL name, User Tokens > Get a Token from eBay via Your Application), whose accepted URL is <PUBLIC_URL>/connectors/ebay/callback; the install's redirect_uri. Unset: no install links",
  }),
  verificationToken: z.string().trim().min(32).max(80).optional().meta({
    description:
      "eBay: the verification token given for the marketplace account deletion endpoint <PUBLIC_URL>/connectors/ebay/account-deletion (Alerts & Notifications; 32-80 characters). Unset: eBay's challenge is refused",
  }),
  defaultCategoryId: z.string().trim().regex(/^\d+$/).optional().meta({
    description:
      'eBay: the leaf category of a published offer when the draft names none (`platformOptions.categoryId`), e.g. 140 (Art Posters) on EBAY_US',
  }),
  apiUrl: origin(
    'https://api.ebay.com',
    "eBay: the REST APIs' origin (Sell Fulfillment, Inventory, Account, Notification, OAuth token)",
  ),
  authUrl: origin('https://auth.ebay.com', "eBay: the consent page's origin (/oauth2/authorize)"),
  identityUrl: origin('https://apiz.ebay.com', "eBay: the Identity API's origin (getUser: the seller's user id)"),
});
export type EbaySettings = z.output<typeof settingsSchema>;

/** What core keeps sealed for a connected seller. */
export const credentialsSchema = z.object({
  /** eBay's immutable user id (Identity getUser `userId`): the store's externalId, named by deletion notifications. */
  userId: z.string(),
  username: z.string(),
  /** Where the seller registered (EBAY_US, EBAY_DE…): the marketplace of policies and offers. */
  marketplaceId: z.string(),
  accessToken: z.string(),
  /** ISO 8601. */
  accessTokenExpiresAt: z.string(),
  refreshToken: z.string(),
  /** ISO 8601: 18 months after the consent; null when eBay did not say (a pasted token). */
  refreshTokenExpiresAt: z.string().nullable(),
});
export type EbayCredentials = z.infer<typeof credentialsSchema>;

/** `POST /stores {platform: "EBAY", refreshToken}`: a user refresh token minted for this app. */
export const connectSchema = z.strictObject({
  refreshToken: z.string().trim().min(20, 'must be an eBay user refresh token issued to this app').max(4096),
});

/** eBay's marketplaces as the Account and Inventory APIs name them: country, currency, Content-Language. */
export const MARKETPLACES: Record<string, { country: string; currency: string; language: string }> = Object.fromEntries(
  ['US USD en', 'GB GBP en', 'DE EUR de', 'FR EUR fr', 'IT EUR it', 'ES EUR es', 'NL EUR nl', 'BE EUR nl', 'AT EUR de']
    .concat(['CH CHF de', 'IE EUR en', 'PL PLN pl', 'CA CAD en', 'AU AUD en'])
    .map((m) => m.split(' ') as [string, string, string])
    .map(([country, currency, lang]) => [`EBAY_${country}`, { country, currency, language: `${lang}-${country}` }]),
);
