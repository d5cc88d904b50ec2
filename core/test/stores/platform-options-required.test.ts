import { expect } from 'chai';
import { z } from 'zod';
import { defineConnector, PlatformOptionsRequired, type ListingDraft } from '@print-api/connector-kit';
import { startTestService, type TestService } from '../helpers/test-service.ts';

/** A platform whose shops have several shipping profiles: the merchant must choose one (Etsy's case). */
const drafts: ListingDraft[] = [];
const choosyShop = defineConnector({
  manifest: {
    platform: 'CHOOSY_SHOP',
    displayName: 'Choosy Shop',
    connectSchema: z.strictObject({}),
    examples: { connect: {} },
    credentialsSchema: z.object({}),
    capabilities: { webhooks: false, polling: false, fulfilment: false, oauth: false, publishing: true },
    rateLimit: { max: 100, durationMs: 1000 },
  },
  connect: async () => ({ externalId: 'choosy', name: 'Choosy', credentials: {} }),
  verifyWebhook: () => ({ ok: false, reason: 'no webhooks' }),
  parseWebhook: async () => ({ kind: 'ignored', reason: 'no webhooks' }),
  storeCurrency: async () => 'EUR',
  storeCountry: async () => 'NL',
  publishListing: async (_ctx, _store, draft) => {
    if (!draft.platformOptions?.shippingProfileId)
      throw new PlatformOptionsRequired('Choosy Shop', [
        {
          option: 'shippingProfileId',
          label: 'shipping profile',
          choices: [
            { id: '11', name: 'Standard' },
            { id: '12', name: 'Express' },
          ],
        },
      ]);
    drafts.push(draft);
    // A permalink that is no web address (a hostile or broken plugin's): never stored nor shown.
    return { externalProductId: 'p-1', externalVariantId: null, status: 'draft', url: 'javascript:alert(1)' };
  },
  updateListing: async () => ({ externalProductId: 'p-1', externalVariantId: null, status: 'draft' }),
  unpublishListing: async () => undefined,
});

describe('Publishing where the store has several of what a listing needs: 422 platform_options_required (PGlite)', function () {
  let t: TestService;
  let key: string;
  let storeId: string;

  before(async function () {
    t = await startTestService(this, 'pglite', {}, { connectors: [choosyShop] });
    const r = await t.reseller();
    key = r.key;
    const product = await t.api(key, 'POST', '/reseller-products', {
      sku: 'MUG-1',
      title: 'Mug',
      productId: 'posters',
    });
    expect(product.status, JSON.stringify(product.body)).to.equal(201);
    storeId = (
      await t.service.services.storesModule.stores.connections.saveConnection(
        { resellerId: r.id, mode: 'live' },
        'CHOOSY_SHOP',
        { externalId: 'choosy-1', name: 'Choosy', credentials: {} },
      )
    ).id;
  });
  after(async () => t?.close());

  it('names the option and its choices by name, records nothing, then publishes with the choice (a permalink that is not http(s) dropped)', async () => {
    const body = { resellerProduct: 'MUG-1', title: 'Mug', priceCents: 1295 };
    const refused = await t.api(key, 'POST', `/stores/${storeId}/listings`, body);
    expect(refused.status, JSON.stringify(refused.body)).to.equal(422);
    expect(refused.body.error.code).to.equal('platform_options_required');
    expect(refused.body.error.message).to.contain('choose a shipping profile (platformOptions.shippingProfileId');
    expect(refused.body.error.details).to.deep.equal([
      {
        field: 'platformOptions.shippingProfileId',
        code: 'platform_options_required',
        message: 'Choose a shipping profile.',
        choices: [
          { id: '11', name: 'Standard' },
          { id: '12', name: 'Express' },
        ],
      },
    ]);
    expect(await t.service.db.selectFrom('store_publications').selectAll().execute()).to.have.length(0);
    const made = await t.api(key, 'POST', `/stores/${storeId}/listings`, {
      ...body,
      platformOptions: { shippingProfileId: '12' },
    });
    expect(made.status, JSON.stringify(made.body)).to.equal(201);
    expect(drafts.at(-1)?.platformOptions).to.deep.equal({ shippingProfileId: '12' });
    expect(made.body.data.url).to.equal(null);
    const [row] = await t.service.db.selectFrom('store_publications').select('url').execute();
    expect(row?.url).to.equal(null);
  });
});
