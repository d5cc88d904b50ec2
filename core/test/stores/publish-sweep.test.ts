import { expect } from 'chai';
import { z } from 'zod';
import { defineConnector } from '@print-api/connector-kit';
import { newId } from '../../src/infra/ids.ts';
import { startTestService, type TestService } from '../helpers/test-service.ts';

/** The products the platform holds: what a publish made before the process writing its answer was killed. */
const inStore: Array<{ externalProductId: string; sku: string }> = [];
const shop = defineConnector({
  manifest: {
    platform: 'SWEPT_SHOP',
    displayName: 'Swept Shop',
    connectSchema: z.strictObject({}),
    examples: { connect: {} },
    credentialsSchema: z.object({}),
    capabilities: { webhooks: false, polling: false, fulfilment: false, oauth: false, publishing: true },
    rateLimit: { max: 100, durationMs: 1000 },
  },
  connect: async () => ({ externalId: 'swept', name: 'Swept', credentials: {} }),
  verifyWebhook: () => ({ ok: false, reason: 'no webhooks' }),
  parseWebhook: async () => ({ kind: 'ignored', reason: 'no webhooks' }),
  storeCurrency: async () => 'EUR',
  storeCountry: async () => 'NL',
  publishListing: async () => ({ externalProductId: 'never', externalVariantId: null, status: 'active' }),
  updateListing: async () => ({ externalProductId: 'never', externalVariantId: null, status: 'active' }),
  unpublishListing: async () => undefined,
  listListings: async () => ({
    listings: inStore.map((p) => ({ ...p, externalVariantId: null, title: p.sku, active: true })),
    nextCursor: null,
  }),
});

/**
 * A publish interrupted by a crash between the platform's answer and our write leaves its intent `publishing`: the
 * maintenance sweep finishes it where the store has the product, and undoes it where it has not, without the merchant
 * publishing again. The crash is made deterministic: the intent is left as the killed process left it (written, its
 * product made on the platform, our write never done), then the worker's sweep runs.
 */
describe('Publishes a crash interrupted, finished or undone by the sweep (PGlite)', function () {
  let t: TestService;
  let owner: { resellerId: string; mode: 'live' };
  let storeId: string;
  const products: Record<string, string> = {};

  before(async function () {
    t = await startTestService(this, 'pglite', {}, { connectors: [shop], maintenanceIntervalMs: 3_600_000 });
    const r = await t.reseller();
    owner = { resellerId: r.id, mode: 'live' };
    for (const sku of ['MUG-MADE', 'MUG-LOST']) {
      const res = await t.api(r.key, 'POST', '/reseller-products', { sku, title: sku, productId: 'posters' });
      expect(res.status, JSON.stringify(res.body)).to.equal(201);
      products[sku] = res.body.data.id;
    }
    storeId = (
      await t.service.services.storesModule.stores.connections.saveConnection(owner, 'SWEPT_SHOP', {
        externalId: 'swept-1',
        name: 'Swept',
        credentials: {},
      })
    ).id;
  });
  after(async () => t?.close());

  const intent = async (sku: string, minutesAgo: number) => {
    const at = new Date(Date.now() - minutesAgo * 60_000);
    const id = newId('pub');
    await t.service.db
      .insertInto('store_publications')
      .values({
        id,
        store_id: storeId,
        reseller_product_id: products[sku]!,
        sku,
        title: sku,
        price_cents: 1295,
        currency: 'EUR',
        status: 'publishing',
        external_product_id: null,
        external_variant_id: null,
        url: null,
        notice: null,
        link_id: null,
        idempotency_key: null,
        request_hash: null,
        created_at: at,
        updated_at: at,
      })
      .execute();
    return id;
  };
  const row = (id: string) =>
    t.service.db.selectFrom('store_publications').selectAll().where('id', '=', id).executeTakeFirst();

  it('records the product the platform made (linked, as the request would have) and undoes the intent whose product is not there', async () => {
    inStore.push({ externalProductId: 'p-41', sku: 'MUG-MADE' });
    const made = await intent('MUG-MADE', 30);
    const lost = await intent('MUG-LOST', 30);

    await t.service.services.maintenance.runOnce();

    const finished = await row(made);
    expect(finished).to.deep.include({ status: 'active', external_product_id: 'p-41' });
    const link = await t.service.db
      .selectFrom('store_links')
      .selectAll()
      .where('id', '=', finished!.link_id!)
      .executeTakeFirstOrThrow();
    expect(link).to.deep.include({ external_product_id: 'p-41', discovered: false, sku: 'MUG-MADE' });
    expect(await row(lost)).to.equal(undefined);
  });

  it('leaves an intent whose request may still be running (recent) to that request', async () => {
    const recent = await intent('MUG-LOST', 0);
    await t.service.services.maintenance.runOnce();
    expect(await row(recent)).to.deep.include({ status: 'publishing' });
  });
});
