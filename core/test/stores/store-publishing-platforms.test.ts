import { expect } from 'chai';
import { z } from 'zod';
import { ConnectorError, defineConnector, type ListingDraft } from '@print-api/connector-kit';
import { amazonConnector } from '@print-api/connector-amazon';
import { tiktokShopConnector } from '@print-api/connector-tiktok-shop';
import { newId } from '../../src/infra/ids.ts';
import { startTestService, type TestService } from '../helpers/test-service.ts';

const SETTINGS = {
  CONNECTOR_AMAZON_LWA_CLIENT_ID: 'amzn1.application-oa2-client.0123456789abcdef',
  CONNECTOR_AMAZON_LWA_CLIENT_SECRET: 'amzn1.oa2-cs.v1.0123456789abcdef0123456789abcdef',
  CONNECTOR_TIKTOK_SHOP_APP_KEY: '6abc123def456',
  CONNECTOR_TIKTOK_SHOP_APP_SECRET: 'tiktok-app-secret-0123456789',
  CONNECTOR_TIKTOK_SHOP_SERVICE_ID: '7012345678901234567',
};

/** A platform that creates products in the background: `pending` first, `active` once read again. */
const drafts: ListingDraft[] = [];
/** Whether the platform refuses to say its country (a grant without that permission). */
let countryRefused = false;
const slowShop = defineConnector({
  manifest: {
    platform: 'SLOW_SHOP',
    displayName: 'Slow Shop',
    connectSchema: z.strictObject({}),
    examples: { connect: {} },
    credentialsSchema: z.object({}),
    capabilities: { webhooks: false, polling: false, fulfilment: false, oauth: false, publishing: true },
    rateLimit: { max: 100, durationMs: 1000 },
  },
  connect: async () => ({ externalId: 'slow', name: 'Slow', credentials: {} }),
  verifyWebhook: () => ({ ok: false, reason: 'no webhooks' }),
  parseWebhook: async () => ({ kind: 'ignored', reason: 'no webhooks' }),
  storeCurrency: async () => 'usd',
  storeCountry: async () =>
    countryRefused ? Promise.reject(new ConnectorError('auth', 'the app may not read the site address')) : 'us',
  publishListing: async (_ctx, _store, draft) => (
    drafts.push(draft), { externalProductId: 'gid-77', externalVariantId: 'v-1', status: 'pending' }
  ),
  getListing: async () => ({
    externalProductId: 'gid-77',
    externalVariantId: 'v-1',
    status: 'active',
    url: 'https://slow.example/p/77',
  }),
  // Like Etsy's inventory: a change of price gives the variant a new id.
  updateListing: async (_ctx, _store, _ref, changes) => ({
    externalProductId: 'gid-77',
    externalVariantId: changes.priceCents ? `v-${changes.priceCents}` : 'v-1',
    status: 'active',
  }),
  unpublishListing: async () => undefined,
});

describe('Publishing to a platform without the capability (TikTok Shop, Amazon), and to one that publishes in the background', function () {
  let t: TestService;
  let key: string;
  const storeOf: Record<string, string> = {};

  before(async function () {
    t = await startTestService(this, 'postgres+redis', SETTINGS, {
      connectors: [tiktokShopConnector, amazonConnector, slowShop],
    });
    const r = await t.reseller();
    key = r.key;
    const product = await t.api(key, 'POST', '/reseller-products', {
      sku: 'MUG-WHITE',
      title: 'Mug',
      productId: 'posters',
    });
    expect(product.status, JSON.stringify(product.body)).to.equal(201);
    const now = new Date();
    for (const platform of ['TIKTOK_SHOP', 'AMAZON']) {
      // Connected as their install flows would leave them; polled and synced just now, so no job calls the platform.
      storeOf[platform] = newId('sto');
      await t.service.db
        .insertInto('stores')
        .values({
          id: storeOf[platform]!,
          reseller_id: r.id,
          mode: 'live',
          platform,
          external_id: `${platform}-shop-1`,
          name: `${platform} shop`,
          credentials_sealed: 'never opened',
          webhook_secret_sealed: null,
          status: 'connected',
          poll_cursor: null,
          last_polled_at: now,
          last_error: null,
          created_at: now,
          updated_at: now,
          disconnected_at: null,
          listings_synced_at: now,
        })
        .execute();
    }
    storeOf.SLOW_SHOP = (
      await t.service.services.storesModule.stores.connections.saveConnection(
        { resellerId: r.id, mode: 'live' },
        'SLOW_SHOP',
        { externalId: 'slow-1', name: 'Slow', credentials: {} },
      )
    ).id;
  });
  after(async () => t?.close());

  for (const [platform, advice] of [
    [
      'TIKTOK_SHOP',
      'TikTok Shop stores cannot be published to from here. Create the product in TikTok Shop Seller Center',
    ],
    ['AMAZON', 'Amazon stores cannot be published to from here. Create the listing in Amazon Seller Central'],
  ] as const) {
    it(`answers 422 not_supported_by_platform for ${platform}, naming what to do instead, and records nothing`, async () => {
      const res = await t.api(key, 'POST', `/stores/${storeOf[platform]}/listings`, {
        resellerProduct: 'MUG-WHITE',
        title: 'Mug',
        priceCents: 1295,
      });
      expect(res.status, JSON.stringify(res.body)).to.equal(422);
      expect(res.body.error.code).to.equal('not_supported_by_platform');
      expect(res.body.error.message).to.contain(advice).and.to.contain('POST /stores/{id}/links');
      expect(
        await t.service.db
          .selectFrom('store_publications')
          .select('id')
          .where('store_id', '=', storeOf[platform]!)
          .execute(),
      ).to.deep.equal([]);
      expect((await t.api(key, 'GET', `/stores/${storeOf[platform]}/links`)).body.data).to.deep.equal([]);
    });
  }

  it("answers 202 where the platform creates the product in the background, in the store's currency, and GET reads it again", async () => {
    expect((await t.api(key, 'GET', `/stores/${storeOf.SLOW_SHOP}`)).body.data.country).to.equal(null);
    const res = await t.api(key, 'POST', `/stores/${storeOf.SLOW_SHOP}/listings`, {
      resellerProduct: 'MUG-WHITE',
      title: 'Mug',
      priceCents: 1295,
    });
    expect(res.status, JSON.stringify(res.body)).to.equal(202);
    expect(res.body.data).to.include({
      status: 'pending',
      currency: 'USD',
      externalProductId: 'gid-77',
      externalVariantId: 'v-1',
    });
    expect(drafts.map((d) => [d.sku, d.priceCents, d.currency, d.published])).to.deep.equal([
      ['MUG-WHITE', 1295, 'USD', true],
    ]);
    // Its country was asked with the currency, and kept on the store (upper case).
    expect((await t.api(key, 'GET', `/stores/${storeOf.SLOW_SHOP}`)).body.data.country).to.equal('US');
    const now = await t.api(key, 'GET', `/stores/${storeOf.SLOW_SHOP}/listings/${res.body.data.id}`);
    expect(now.body.data).to.include({ status: 'active', url: 'https://slow.example/p/77' });
    const links = (await t.api(key, 'GET', `/stores/${storeOf.SLOW_SHOP}/links`)).body.data;
    expect(
      links.map((l: Record<string, unknown>) => [l.sku, l.externalProductId, l.externalVariantId, l.discovered]),
    ).to.deep.equal([['MUG-WHITE', 'gid-77', 'v-1', false]]);
  });

  it('moves the link when a change gives the product new ids on the platform, so its lines still match', async () => {
    const listing = (await t.api(key, 'GET', `/stores/${storeOf.SLOW_SHOP}/links`)).body.data;
    expect(listing).to.have.length(1);
    const published = await t.service.db
      .selectFrom('store_publications')
      .select('id')
      .where('store_id', '=', storeOf.SLOW_SHOP!)
      .executeTakeFirstOrThrow();
    const res = await t.api(key, 'PATCH', `/stores/${storeOf.SLOW_SHOP}/listings/${published.id}`, {
      priceCents: 1495,
    });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    expect(res.body.data).to.include({ externalProductId: 'gid-77', externalVariantId: 'v-1495', priceCents: 1495 });
    const links = (await t.api(key, 'GET', `/stores/${storeOf.SLOW_SHOP}/links`)).body.data;
    expect(
      links.map((l: Record<string, unknown>) => [l.sku, l.externalProductId, l.externalVariantId, l.discovered]),
    ).to.deep.equal([['MUG-WHITE', 'gid-77', 'v-1495', false]]);
    expect(res.body.data.linkId).to.equal(links[0].id);
  });

  it("publishes where the platform will not say the store's country, and asks for it again at the next publish", async () => {
    const r = await t.service.db
      .selectFrom('stores')
      .select('reseller_id')
      .where('id', '=', storeOf.SLOW_SHOP!)
      .executeTakeFirstOrThrow();
    const other = (
      await t.service.services.storesModule.stores.connections.saveConnection(
        { resellerId: r.reseller_id, mode: 'live' },
        'SLOW_SHOP',
        { externalId: 'slow-2', name: 'Slow 2', credentials: {} },
      )
    ).id;
    expect(
      (await t.api(key, 'POST', '/reseller-products', { sku: 'MUG-BLACK', title: 'Black mug', productId: 'posters' }))
        .status,
    ).to.equal(201);
    countryRefused = true;
    const first = await t.api(key, 'POST', `/stores/${other}/listings`, {
      resellerProduct: 'MUG-WHITE',
      title: 'Mug',
      priceCents: 1295,
    });
    expect(first.status, JSON.stringify(first.body)).to.equal(202);
    expect(first.body.data.currency).to.equal('USD');
    expect((await t.api(key, 'GET', `/stores/${other}`)).body.data.country).to.equal(null);
    countryRefused = false;
    expect(
      (
        await t.api(key, 'POST', `/stores/${other}/listings`, {
          resellerProduct: 'MUG-BLACK',
          title: 'Black mug',
          priceCents: 1295,
        })
      ).status,
    ).to.equal(202);
    expect((await t.api(key, 'GET', `/stores/${other}`)).body.data.country).to.equal('US');
  });

  it('finds the listings of an unknown store and product unknown (404)', async () => {
    const res = await t.api(key, 'POST', `/stores/sto_unknown/listings`, {
      resellerProduct: 'MUG-WHITE',
      title: 'Mug',
      priceCents: 1295,
    });
    expect(res.status).to.equal(404);
    const missing = await t.api(key, 'POST', `/stores/${storeOf.AMAZON}/listings`, {
      resellerProduct: 'NO-SUCH-SKU',
      title: 'Mug',
      priceCents: 1295,
    });
    expect(missing.status).to.equal(404);
    expect(
      (await t.api(key, 'PATCH', `/stores/${storeOf.AMAZON}/listings/pub_unknown`, { priceCents: 100 })).status,
    ).to.equal(404);
    expect((await t.api(key, 'DELETE', `/stores/${storeOf.AMAZON}/listings/pub_unknown`)).status).to.equal(404);
  });
});
