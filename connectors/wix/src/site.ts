import { ConnectorError, minorUnitsToDecimal, parsePayload } from '@print-api/connector-kit';
import { z } from 'zod';
import type { WixClient } from './wix-client.ts';

const appInstance = z.object({ site: z.object({ paymentCurrency: z.string().nullish() }).nullish() });
const siteProperties = z.object({
  properties: z.object({ address: z.object({ country: z.string().nullish() }).nullish() }).nullish(),
});
const catalogAnswer = z.object({ catalogVersion: z.string().nullish() });

/** The Wix Stores catalogue a site runs: V1 (older sites), V3 (every new site since 2025), or none. */
export type SiteCatalog = 'v1' | 'v3' | 'none';

/**
 * The site's catalogue (`GET /stores/v3/provision/version`). The two are not compatible (a V1 call on a V3 site answers
 * 428, and the other way round) and a site moves from V1 to V3 once, never back: asked at the start of each flow, as
 * Wix asks apps to.
 */
export async function siteCatalog(client: WixClient): Promise<SiteCatalog> {
  const answer = parsePayload(
    catalogAnswer,
    await client.call<unknown>('getCatalogVersion', 'GET', '/stores/v3/provision/version'),
    'Wix catalog version',
  );
  if (answer.catalogVersion === 'STORES_NOT_INSTALLED') return 'none';
  return answer.catalogVersion === 'V1_CATALOG' ? 'v1' : 'v3';
}

/**
 * The site's payment currency (the app instance's `site.paymentCurrency`), upper case; undefined before the merchant
 * sets one.
 */
async function paymentCurrency(client: WixClient): Promise<string | undefined> {
  const app = parsePayload(
    appInstance,
    await client.call<unknown>('getAppInstance', 'GET', '/apps/v1/instance'),
    'Wix app instance',
  );
  return app.site?.paymentCurrency?.toUpperCase();
}

const NO_CURRENCY = 'The Wix site has no payment currency yet: set one in its dashboard, then publish again.';

/** What a listing's price is written in (the connector's `storeCurrency`): the site's payment currency. */
export async function wixSiteCurrency(client: WixClient): Promise<string> {
  const currency = await paymentCurrency(client);
  if (!currency) throw new ConnectorError('invalid_payload', NO_CURRENCY);
  return currency;
}

/**
 * The site's country: its business address (Site Properties' `address.country`, ISO 3166-1 alpha-2); null when the site
 * has none.
 */
export async function wixSiteCountry(client: WixClient): Promise<string | null> {
  const answer = parsePayload(
    siteProperties,
    await client.call<unknown>('getSiteProperties', 'GET', '/site-properties/v4/properties'),
    'Wix site properties',
  );
  return answer.properties?.address?.country?.toUpperCase() || null;
}

/**
 * A price as the decimal string of the site's payment currency (2495 cents of USD -> "24.95"). Wix prices a product in
 * that currency only (V1's `priceData.currency` is read-only, V3 prices in the site's currency): `asked` absent means
 * that one, another is refused.
 */
export async function priceIn(client: WixClient, priceCents: number, asked: string | undefined): Promise<string> {
  const siteCurrency = await paymentCurrency(client);
  const currency = asked?.toUpperCase() ?? siteCurrency;
  if (!currency) throw new ConnectorError('invalid_payload', NO_CURRENCY);
  if (siteCurrency && siteCurrency !== currency)
    throw new ConnectorError(
      'invalid_payload',
      `The Wix site sells in ${siteCurrency}, not ${currency}: give the price in ${siteCurrency}.`,
    );
  return minorUnitsToDecimal(priceCents, currency);
}
