import { z } from 'zod';

/** How far back the first poll of a new store looks: orders older than the connection are not ours to print. */
export const FIRST_POLL_LOOKBACK_MS = 60 * 60 * 1000;

/**
 * How far before the newest change seen each polling run starts again: a change written by a transaction that
 * committed after a later one (MySQL, several PHP workers) is read by the next run instead of being passed over.
 */
export const POLL_OVERLAP_MS = 2 * 60 * 1000;

/** Orders per polling page (a Criteria's `limit`; Shopware's Admin API takes up to 500). */
export const POLL_PAGE_SIZE = 50;

/** Products per listings page. */
export const LISTINGS_PAGE_SIZE = 100;

/** An access token is renewed when it has less than this left (Shopware's live 10 minutes). */
export const TOKEN_REFRESH_MARGIN_MS = 60_000;

/** `Defaults::SALES_CHANNEL_TYPE_STOREFRONT`: the type id of every storefront sales channel. */
export const STOREFRONT_TYPE_ID = '8a243080f92e4c719546314b577cf82b';

/** Shopware's ids: 32 lower-case hex digits (a UUID without dashes). */
export const shopwareId = z.string().regex(/^[0-9a-f]{32}$/, 'must be a Shopware id (32 hex digits)');

/**
 * The shop's address: HTTPS only (the client secret travels to it), normalised to scheme + host + path without a
 * trailing slash, and without a trailing `/api` or `/admin` a merchant may paste, so the same shop is always the same
 * `externalId`. The Admin API is under `<shopUrl>/api`.
 */
export const shopUrlSchema = z
  .url({ protocol: /^https$/, message: 'must be an https URL (the integration secret is only sent over HTTPS)' })
  .max(2048)
  .transform((raw) => {
    const url = new URL(raw);
    const path = url.pathname.replace(/\/+$/, '').replace(/\/(api|admin)$/, '');
    return `${url.protocol}//${url.host.toLowerCase()}${path}`;
  });

/**
 * `POST /stores {platform: "SHOPWARE", shopUrl, accessKeyId, secretAccessKey, salesChannelId?}`: the credentials of
 * an integration (Settings > System > Integrations). Its access key id starts with `SWIA` (`AccessKeyHelper`).
 */
export const connectSchema = z.strictObject({
  shopUrl: shopUrlSchema,
  accessKeyId: z
    .string()
    .trim()
    .regex(/^SWIA[A-Z0-9]{10,60}$/, 'must be an integration access key id (SWIA followed by capitals and digits)'),
  secretAccessKey: z.string().trim().min(20, 'must be the integration secret access key').max(200),
  salesChannelId: shopwareId
    .optional()
    .meta({ description: 'The storefront whose currency prices a publish; the first storefront when absent' }),
});
export type ConnectInput = z.output<typeof connectSchema>;

/** What core keeps sealed for a connected shop: the integration's keys and the current access token. */
export const credentialsSchema = z.object({
  shopUrl: z.string(),
  accessKeyId: z.string(),
  secretAccessKey: z.string(),
  salesChannelId: z.string(),
  accessToken: z.string().optional(),
  accessTokenExpiresAt: z.string().optional(),
});
export type ShopwareCredentials = z.infer<typeof credentialsSchema>;
