import { ConnectorError, type HttpClient, type StoreConnection } from '@print-api/connector-kit';
import type { WooCredentials } from './config.ts';
import { WooCommerceClient } from './woocommerce-client.ts';

/**
 * Checks keys against the store's REST API and describes the store: they must read (the
 * webhook list, which also needs a user who may manage WooCommerce) and write (webhooks,
 * notes, statuses). Used by `POST /stores` and by the key-issuing flow alike.
 */
export async function connectWithKeys(
  http: HttpClient,
  credentials: WooCredentials,
): Promise<StoreConnection<WooCredentials>> {
  const client = new WooCommerceClient({ http, credentials });
  try {
    await client.checkReadAccess();
  } catch (err) {
    if (err instanceof ConnectorError && err.status === 404)
      throw await missingRestApi(client, credentials.storeUrl, err);
    throw err;
  }
  try {
    await client.checkWriteAccess();
  } catch (err) {
    if (err instanceof ConnectorError && err.kind === 'auth') {
      throw new ConnectorError('auth', 'The WooCommerce keys are read-only: create them with Read/Write permissions.', {
        status: err.status,
        cause: err,
      });
    }
    throw err;
  }
  const name = (await client.siteName()) ?? new URL(credentials.storeUrl).host;
  return { externalId: credentials.storeUrl, name, credentials };
}

/**
 * What to tell a merchant whose store has no `/wp-json/wc/v3`: on plain permalinks WordPress
 * serves the REST API only as `?rest_route=`, which WooCommerce's REST API does not support
 * (its documentation requires pretty permalinks); otherwise the URL is not a WooCommerce store.
 */
async function missingRestApi(
  client: WooCommerceClient,
  storeUrl: string,
  cause: ConnectorError,
): Promise<ConnectorError> {
  if (await client.restApiOnlyAtQueryRoute()) {
    return new ConnectorError(
      'invalid_payload',
      'The store uses plain permalinks, so WordPress serves no /wp-json/ REST API, which WooCommerce connections need: in WordPress, Settings > Permalinks, choose any structure other than "Plain", save, then connect again.',
      { status: 404, cause },
    );
  }
  return new ConnectorError(
    'invalid_payload',
    `There is no WooCommerce REST API at ${storeUrl}/wp-json/wc/v3: give the store's home address, with WooCommerce active.`,
    { status: 404, cause },
  );
}
