import { ConnectorError, type HttpClient, type StoreConnection } from '@print-api/connector-kit';
import type { WooCredentials } from './config.ts';
import { WooCommerceClient } from './woocommerce-client.ts';

/**
 * Checks keys against the store's REST API and describes the store: they must read (the
 * webhook list, which also needs a user who may manage WooCommerce) and write (webhooks,
 * notes, statuses). Used by `POST /stores` and by the key-issuing flow alike.
 */
export async function connectWithKeys(http: HttpClient, credentials: WooCredentials): Promise<StoreConnection<WooCredentials>> {
  const client = new WooCommerceClient({ http, credentials });
  await client.checkReadAccess();
  try {
    await client.checkWriteAccess();
  } catch (err) {
    if (err instanceof ConnectorError && err.kind === 'auth') {
      throw new ConnectorError('auth', 'The WooCommerce keys are read-only: create them with Read/Write permissions.', { status: err.status, cause: err });
    }
    throw err;
  }
  const name = (await client.siteName()) ?? new URL(credentials.storeUrl).host;
  return { externalId: credentials.storeUrl, name, credentials };
}
