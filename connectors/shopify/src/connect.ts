import type { ConnectorContext, StoreConnection } from '@print-api/connector-kit';
import { ConnectorError } from '@print-api/connector-kit';
import {
  missingScopes,
  shopOrigin,
  type ConnectInput,
  type ShopifyCredentials,
  type ShopifySettings,
} from './config.ts';
import { ShopifyClient } from './shopify-client.ts';

export const SHOP_QUERY = `query ShopForConnection {
  shop { name myshopifyDomain }
  currentAppInstallation { accessScopes { handle } }
}`;

interface ShopAnswer {
  shop: { name: string; myshopifyDomain: string };
  currentAppInstallation: { accessScopes: Array<{ handle: string }> };
}

/** The shop's name, permanent domain and the scopes its token carries; refuses a token missing ours. */
export async function describeShop(client: ShopifyClient): Promise<{ name: string; domain: string; scope: string }> {
  const data = await client.graphql<ShopAnswer>(SHOP_QUERY);
  const scope = data.currentAppInstallation.accessScopes.map((s) => s.handle).join(',');
  const missing = missingScopes(scope);
  if (missing.length > 0)
    throw new ConnectorError(
      'auth',
      `The access token lacks the scopes ${missing.join(', ')}: grant them to the app and try again.`,
    );
  return { name: data.shop.name, domain: data.shop.myshopifyDomain.toLowerCase(), scope };
}

/**
 * `POST /stores` for a custom app: the Admin API access token is checked against the shop
 * (name, domain, granted scopes). Its API secret key, when given, signs the webhooks we
 * register with that token, so it becomes the store's webhook secret (sealed by core).
 */
export async function connectCustomApp(
  ctx: ConnectorContext<ShopifySettings>,
  input: ConnectInput,
): Promise<StoreConnection<ShopifyCredentials>> {
  const client = new ShopifyClient({
    http: ctx.http,
    shop: input.shop,
    origin: shopOrigin(ctx.settings, input.shop),
    accessToken: input.accessToken,
    logger: ctx.logger,
  });
  const shop = await describeShop(client);
  if (shop.domain !== input.shop)
    throw new ConnectorError('invalid_payload', `The token belongs to ${shop.domain}, not ${input.shop}.`);
  return {
    externalId: shop.domain,
    name: shop.name,
    credentials: { kind: 'custom', shop: shop.domain, accessToken: input.accessToken, scope: shop.scope },
    webhookSecret: input.apiSecretKey,
  };
}
