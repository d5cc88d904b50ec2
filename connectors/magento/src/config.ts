import { z } from 'zod';

/** How far back the first poll of a new store looks: orders older than the connection are not ours to print. */
export const FIRST_POLL_LOOKBACK_MS = 60 * 60_000;

/**
 * How far before the newest change read a run starts again: Magento's `updated_at` counts whole seconds, so a change
 * in the second already read (or committed late) is caught by the next run.
 */
export const POLL_OVERLAP_MS = 2 * 60_000;

/** Orders per page of `GET /V1/orders` (2.4.7+ refuses a `pageSize` over its limit, 300 by default). */
export const ORDERS_PAGE_SIZE = 50;

/** Products per page of `GET /V1/products`. */
export const PRODUCTS_PAGE_SIZE = 100;

/** Magento's "Default" attribute set, which every installation has (`eav_attribute_set` id 4 for products). */
export const DEFAULT_ATTRIBUTE_SET_ID = 4;

/** `visibility` "Catalog, Search" (`Magento\Catalog\Model\Product\Visibility::VISIBILITY_BOTH`). */
export const VISIBLE_IN_CATALOG_AND_SEARCH = 4;

/** `status` of a product: enabled 1, disabled 2 (`Magento\Catalog\Model\Product\Attribute\Source\Status`). */
export const STATUS_ENABLED = 1;
export const STATUS_DISABLED = 2;

/** Where a merchant turns on what 2.4.4+ needs before an integration's token works as a Bearer token. */
export const BEARER_SETTING =
  'Stores > Configuration > Services > OAuth > Consumer Settings > "Allow OAuth Access Tokens to be used as standalone Bearer tokens" = Yes (oauth/consumer/enable_integration_as_bearer)';

/** A store code (Stores > All Stores > store view): a letter, then letters, digits or underscores. */
const STORE_CODE = /^[a-z][a-z0-9_]*$/;

/**
 * The store's base address, https only (the token travels as a Bearer credential), normalised without a trailing
 * slash. A pasted REST address (`…/rest`, `…/rest/V1`, `…/rest/<store_code>/V1`) is cut back to the base: its store
 * code, if any, is taken by `restRoot`.
 */
export const baseUrlSchema = z
  .url({ protocol: /^https$/, message: 'must be an https URL (the access token is only sent over HTTPS)' })
  .max(2048)
  .transform((raw) => {
    const url = new URL(raw);
    return `${url.protocol}//${url.host.toLowerCase()}${url.pathname.replace(/\/+$/, '')}`;
  });

/** `POST /stores {platform: "MAGENTO", baseUrl, accessToken, storeCode?}`. */
export const connectSchema = z.strictObject({
  baseUrl: baseUrlSchema,
  accessToken: z
    .string()
    .trim()
    .regex(
      /^[A-Za-z0-9]{32}$/,
      "must be the integration's Access Token (32 letters and digits: System > Extensions > Integrations > Activate)",
    ),
  storeCode: z
    .string()
    .trim()
    .toLowerCase()
    .regex(STORE_CODE, 'must be a Magento store code (a letter, then letters, digits or underscores)')
    .optional()
    .meta({
      description: "The store view's code (REST under /rest/<storeCode>/V1); the default store view when absent",
    }),
});

/** What core keeps sealed for a connected store. */
export const credentialsSchema = z.object({
  baseUrl: z.string(),
  storeCode: z.string().nullable(),
  accessToken: z.string(),
});
export type MagentoCredentials = z.infer<typeof credentialsSchema>;

/**
 * The base address and store code of a connection: a REST address pasted as `baseUrl` gives both (`…/rest/de/V1` is
 * the base with the store code `de`); an explicit `storeCode` wins.
 */
export function restRoot(
  baseUrl: string,
  storeCode: string | undefined,
): { baseUrl: string; storeCode: string | null } {
  const m = /^(.*?)\/rest(?:\/([^/]+))?(?:\/V1)?$/i.exec(baseUrl);
  if (!m) return { baseUrl, storeCode: storeCode ?? null };
  const pasted = m[2] && m[2].toUpperCase() !== 'V1' && STORE_CODE.test(m[2].toLowerCase()) ? m[2].toLowerCase() : null;
  return { baseUrl: m[1]!, storeCode: storeCode ?? pasted };
}

/** `https://shop.example.com/rest/V1` or `https://shop.example.com/rest/de/V1`: where every call goes. */
export const restBase = (c: Pick<MagentoCredentials, 'baseUrl' | 'storeCode'>): string =>
  `${c.baseUrl}/rest/${c.storeCode ? `${encodeURIComponent(c.storeCode)}/` : ''}V1`;
