import assert from 'node:assert/strict';
import type { ConnectorContext, ListingDraft, StoreConnection } from '@print-api/connector-kit';
import { startFakePlatformServer, type FakePlatformServer } from '@print-api/core/testing';
import { settingsSchema, type WixCredentials, type WixSettings } from '../src/config.ts';
import { forgetMintedTokens } from '../src/wix-client.ts';
import type { CatalogVersion } from './fake-wix-catalogue.ts';
import { APP, FakeWix, takeContractViolations, type FakeWixSite } from './fake-wix.ts';

const PUBLIC_URL = 'https://print-api.example.com';

/** A product as publishing takes it: a poster in USD with one mock-up. */
export const draft = (over: Partial<ListingDraft> = {}): ListingDraft => ({
  sku: 'POSTER-TULIPS-A2',
  title: 'Tulip poster A2',
  description: 'Tulips & windmills, printed on 200 g matte paper.',
  priceCents: 2495,
  currency: 'USD',
  imageUrls: ['https://cdn.print-api.example.com/mockups/tulips-front.jpg'],
  published: true,
  ...over,
});

export interface PublishingFixture {
  wix: FakeWix;
  site: FakeWixSite;
  ctx: ConnectorContext<WixSettings>;
  store: StoreConnection<WixCredentials>;
}

/**
 * The hooks of a publishing suite, registered in the calling `describe`: the fake Wix over local HTTPS (so the
 * connector's calls go through core's HttpClient: guard, TLS, statuses, Retry-After, as in production), a fresh
 * installed site per test with its connector context and store, and after each test no call that broke the published
 * contract (the official SDK packages: method, path, request fields, required fields, enums).
 */
export function publishingFixture(catalogVersion?: CatalogVersion): PublishingFixture {
  const wix = new FakeWix(catalogVersion ? { catalogVersion } : {});
  const f = { wix } as PublishingFixture;
  let server: FakePlatformServer | undefined;
  before(async () => {
    server = await startFakePlatformServer();
    await wix.start(server);
  });
  beforeEach(() => {
    forgetMintedTokens();
    f.site = wix.newSite();
    f.site.installed = true;
    f.ctx = server!.context(
      'wix',
      settingsSchema.parse({
        appId: APP.appId,
        appSecret: APP.appSecret,
        publicKey: wix.keys.publicKey,
        apiUrl: wix.url,
      }),
      PUBLIC_URL,
    );
    f.store = {
      externalId: f.site.instanceId,
      name: f.site.name,
      credentials: { instanceId: f.site.instanceId, accessToken: null, expiresAt: null },
    };
  });
  afterEach(() => assert.deepEqual(takeContractViolations(), []));
  after(async () => server?.close());
  return f;
}
