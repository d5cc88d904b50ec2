import { expect } from 'chai';
import type { ConnectorContext, ListingDraft, StoreConnection } from '@print-api/connector-kit';
import {
  redirectTo,
  sendBytes,
  startFakePlatformServer,
  tinyHtml,
  tinyJpeg,
  tinyPng,
  type FakePlatformServer,
} from '@print-api/core/testing';
import { settingsSchema, type EtsyCredentials, type EtsySettings } from '../src/config.ts';
import { ALL_SCOPES, APP, FakeEtsy, type FakeEtsyShop, type ListingJson } from './fake-etsy.ts';

const PUBLIC_URL = 'https://print-api.example.com';

/** What a publishing test works with: a new seller's shop, its store as core hands it over, and the connector's context. */
export interface PublishingWorld {
  server: FakePlatformServer;
  shop: FakeEtsyShop;
  ctx: ConnectorContext<EtsySettings>;
  store: StoreConnection<EtsyCredentials>;
}

/**
 * The publishing tests' set-up, registered in the calling `describe`: the fake Etsy over local HTTPS (the connector's
 * calls go through core's HttpClient: guard, TLS, statuses, Retry-After, as in production), the merchant's image host
 * on the same server (its localhost let through by the guard, as a CDN would be), a new shop per test, and every call
 * held to Etsy's Open API v3 document after each test.
 */
export function etsyPublishing() {
  const etsy = new FakeEtsy();
  let world: PublishingWorld;
  let server: FakePlatformServer;
  before(async () => {
    server = await startFakePlatformServer();
    etsy.serve(server);
    server.route('/mockups/tulips-front.jpg', sendBytes(tinyJpeg(), 'image/jpeg'));
    server.route('/mockups/back', redirectTo('/mockups/back.png'));
    server.route('/mockups/back.png', sendBytes(tinyPng(), 'image/png'));
    server.route('/mockups/page.jpg', sendBytes(tinyHtml(), 'image/jpeg'));
    server.route('/mockups/internal', redirectTo('https://169.254.169.254/latest/meta-data/'));
  });
  beforeEach(() => {
    const shop = etsy.addShop();
    const tokens = etsy.issueTokens(shop);
    const ctx = server.context(
      'etsy',
      settingsSchema.parse({ keystring: APP.keystring, sharedSecret: APP.sharedSecret, apiUrl: etsy.url }),
      PUBLIC_URL,
    );
    const store = {
      externalId: shop.shopId,
      name: shop.shopName,
      credentials: {
        shopId: shop.shopId,
        userId: shop.userId,
        accessToken: tokens.accessToken,
        accessTokenExpiresAt: tokens.expiresAt.toISOString(),
        refreshToken: tokens.refreshToken,
        scopes: [...ALL_SCOPES],
      },
    };
    world = { server, shop, ctx, store };
  });
  // Every call kept to Etsy's Open API v3 document: operation, parameters, form, JSON and multipart bodies, scopes.
  afterEach(() => expect(etsy.contractLog.violations.splice(0)).to.deep.equal([]));
  after(async () => server?.close());

  return {
    etsy,
    /** This test's shop, store and context (set before each test). */
    world: () => world,
    /** A poster to publish, with its image on the merchant's host and the shop's own profiles. */
    draft: (over: Partial<ListingDraft> = {}): ListingDraft => ({
      sku: 'POSTER-TULIPS-A2',
      title: 'Tulip poster A2 - matte print',
      description: 'Tulips and windmills, printed on 200 g matte paper.',
      priceCents: 2495,
      currency: 'USD',
      imageUrls: [`${server.url}/mockups/tulips-front.jpg?v=2`],
      published: true,
      platformOptions: {
        taxonomyId: 2078,
        shippingProfileId: world.shop.setup.shippingProfiles[0],
        readinessStateId: world.shop.setup.readinessStates[0],
        returnPolicyId: world.shop.setup.returnPolicies[0],
      },
      ...over,
    }),
    /** The listing as the fake Etsy holds it. */
    listing: (id: string): ListingJson => world.shop.listings.find((l) => String(l.listing_id) === id)!,
  };
}
