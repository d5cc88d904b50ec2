import { ConnectorError, parseJsonPayload, type HttpClient, type StoreConnection } from '@print-api/connector-kit';
import { z } from 'zod';
import { issuedKeysSchema, storeUrlSchema, type WooCredentials } from './config.ts';
import { connectWithKeys } from './connect.ts';

/** The name the merchant sees on WooCommerce's "<app> would like to connect to your store" screen. */
export const APP_NAME = 'Print API';

/** `POST /stores/credential-requests {platform: "WOOCOMMERCE", storeUrl}`. */
export const keyRequestSchema = z.strictObject({ storeUrl: storeUrlSchema });

/**
 * WooCommerce's Application Authentication Endpoint: the merchant logs in, approves
 * read/write access, WooCommerce creates keys and POSTs them to `callback_url` (which must
 * be HTTPS), then sends the merchant to `return_url?success=1&user_id=…`. `user_id` is ours
 * to choose and comes back in the POST: we send the request's state and check it.
 */
export function authorizeUrl(p: { storeUrl: string; state: string; callbackUrl: string; returnUrl: string }): string {
  const url = new URL(`${p.storeUrl}/wc-auth/v1/authorize`);
  url.searchParams.set('app_name', APP_NAME);
  url.searchParams.set('scope', 'read_write');
  url.searchParams.set('user_id', p.state);
  url.searchParams.set('return_url', p.returnUrl);
  url.searchParams.set('callback_url', p.callbackUrl);
  return url.toString();
}

/**
 * The keys WooCommerce POSTed (`{key_id, user_id, consumer_key, consumer_secret,
 * key_permissions}`): they must answer our request, be read/write, and work against the
 * store the request named (never a store the body could name).
 */
export async function receiveIssuedKeys(
  http: HttpClient,
  p: { storeUrl: string; state: string; rawBody: Buffer },
): Promise<StoreConnection<WooCredentials>> {
  const keys = parseJsonPayload(issuedKeysSchema, p.rawBody, 'The keys WooCommerce sent');
  if (keys.user_id !== p.state)
    throw new ConnectorError('invalid_payload', 'The keys were issued for another connection request');
  if (keys.key_permissions !== 'read_write')
    throw new ConnectorError('auth', `The store granted ${keys.key_permissions} access; Print API needs read_write`);
  return connectWithKeys(http, {
    storeUrl: p.storeUrl,
    consumerKey: keys.consumer_key,
    consumerSecret: keys.consumer_secret,
  });
}
