import { z } from 'zod';

const origin = z.url({ protocol: /^https$/ }).transform((v) => v.replace(/\/+$/, ''));

export const settingsSchema = z.object({
  loginUrl: origin.default('https://login.bol.com').meta({
    description:
      "Origin of bol's token endpoint (POST /token?grant_type=client_credentials); point it at a local fake in tests",
  }),
  apiUrl: origin.default('https://api.bol.com').meta({
    description: "Origin of bol's Retailer API v10 (/retailer/…) and Shared API v10 (/shared/process-status)",
  }),
});
export type BolSettings = z.output<typeof settingsSchema>;

/** bol's API credentials: ids and secrets are long URL-safe strings (a UUID for the id, in practice). */
const credential = (what: string) =>
  z
    .string()
    .trim()
    .min(8, `must be the ${what} of the seller's Retailer API credentials`)
    .max(200)
    .regex(/^[\x21-\x7e]+$/, `must be the ${what} as bol shows it (no spaces)`);

/** `POST /stores {platform: "BOL", clientId, clientSecret}`: seller dashboard > Settings > API settings. */
export const connectSchema = z.strictObject({
  clientId: credential('client id').meta({
    description: "The client id of the seller's Retailer API credentials (seller dashboard > Settings > API settings)",
  }),
  clientSecret: credential('client secret').meta({ description: 'The secret of those credentials' }),
});

export const credentialsSchema = z.object({
  clientId: z.string(),
  clientSecret: z.string(),
  accessToken: z.string().nullable(),
  accessTokenExpiresAt: z.string().nullable(),
});
export type BolCredentials = z.infer<typeof credentialsSchema>;

/** The media type of every Retailer and Shared API v10 request and answer. */
export const V10 = 'application/vnd.retailer.v10+json';
/** Renew the access token (bol's live 299 s) when it has less than this left. */
export const TOKEN_MARGIN_MS = 30_000;
/** bol's orders list: 50 orders a page (the `page` parameter's description). */
export const ORDERS_PAGE_SIZE = 50;
/** Each run looks again at changes from this long before the previous run began (changes indexed late). */
export const POLL_OVERLAP_MS = 5 * 60_000;
/** How long one push follows a shipment's process status before leaving it to the next attempt. */
export const PROCESS_WAIT_MS = 60_000;
/** bol's calendar (latest-change-date is a day): its orders are placed in the Netherlands and Belgium. */
export const BOL_TIME_ZONE = 'Europe/Amsterdam';
