/**
 * How a platform is named: upper snake case (`SHOPIFY`, `TIKTOK_SHOP`). The name is the orders'
 * `source`, the stores' `platform` and the prefix of the connector's settings.
 */
export const PLATFORM_NAME = /^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*$/;

/** How a setting is named in the manifest's schema: camel case (`apiKey`, `lwaUrl`). */
export const SETTING_KEY = /^[a-z][a-zA-Z0-9]*$/;

/** The platform in URLs: `TIKTOK_SHOP` -> `tiktok-shop` (`/connectors/tiktok-shop/...`). */
export const platformSlug = (platform: string): string => platform.toLowerCase().replace(/_/g, '-');

/**
 * The environment variable a setting is read from: `CONNECTOR_<PLATFORM>_<KEY in UPPER_SNAKE>`,
 * so the setting `apiKey` of `SHOPIFY` is `CONNECTOR_SHOPIFY_API_KEY`. Connectors name it in
 * their errors (e.g. "set CONNECTOR_SHOPIFY_API_KEY"), core reads it, the README lists it.
 */
export function settingVariable(platform: string, key: string): string {
  return `CONNECTOR_${platform}_${key.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toUpperCase()}`;
}
