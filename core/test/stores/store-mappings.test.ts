import { expect } from 'chai';
import { mapReferenceOrder, referenceConnector } from '../../../test/reference-connector/src/index.ts';
import type { TestHttpsServer } from '../helpers/https-server.ts';
import { ReferenceShop, refOrder, type RefOrderJson } from '../helpers/reference-shop.ts';
import { startTestService, type Backend, type TestService } from '../helpers/test-service.ts';
import { waitFor, scaled } from '../helpers/wait.ts';
import { startFileServer } from '../orders/orders-helpers.ts';

/**
 * Mapping a store's existing listings to reseller products (POST /stores/{id}/links): which
 * product a line prints as (SKU, then a variant's link, then a product's), what the listings
 * show, unmapping, the bulk retry of skipped orders, refusals and tenant isolation.
 */
for (const backend of ['pglite', 'postgres+redis'] as Backend[]) {
  describe(`store listing mappings [${backend}]`, function () {
    this.timeout(scaled(60_000));
    let t: TestService;
    let files: TestHttpsServer;
    let shop: ReferenceShop;
    let key: string;
    let storeId: string;
    let orders = 0;

    const createProduct = async (sku: string) => {
      const res = await t.api(key, 'POST', '/reseller-products', {
        sku,
        title: sku,
        productId: 'business-cards',
        fileUrl: `${files.url}/art/flyer.pdf`,
      });
      expect(res.status, JSON.stringify(res.body)).to.equal(201);
      return res.body.data as { id: string; sku: string };
    };
    const link = async (body: Record<string, string>, status = 201) => {
      const res = await t.api(key, 'POST', `/stores/${storeId}/links`, body);
      expect(res.status, JSON.stringify(res.body)).to.equal(status);
      return res.body;
    };
    const storeRow = () => t.service.services.storesModule.stores.connections.findById(storeId).then((s) => s!);
    /** A store order of these lines, kept by the shop (a retry fetches it) and ingested now. */
    const ingestOrder = async (items: RefOrderJson['items']) => {
      const id = `M-${++orders}`;
      const order = refOrder(id, { items: items.map((item, i) => ({ ...item, id: `${id}-${i}` })) });
      shop.orders.set(id, order);
      await t.service.services.storesModule.ingester.ingest(await storeRow(), mapReferenceOrder(order));
      return ingestRow(id);
    };
    const ingestRow = (externalId: string) =>
      t.service.db
        .selectFrom('store_ingests')
        .selectAll()
        .where('store_id', '=', storeId)
        .where('external_order_id', '=', externalId)
        .executeTakeFirstOrThrow();
    const printedSkus = async (orderId: string | null) =>
      ((await t.api(key, 'GET', `/orders/${orderId}`)).body.data.lines as Array<{ resellerSku: string }>).map(
        (l) => l.resellerSku,
      );
    const listing = async (productId: string, variantId: string | null) => {
      const all = (await t.api(key, 'GET', `/stores/${storeId}/listings?limit=100`)).body.data as Array<
        Record<string, any>
      >;
      return all.find((l) => l.externalProductId === productId && l.externalVariantId === variantId)!;
    };

    before(async function () {
      files = await startFileServer();
      shop = await ReferenceShop.start();
      shop.productsPageSize = 10;
      shop.products.set('p-1', { id: 'p-1', variant_id: 'v-1', sku: 'CARD-01', title: 'Business cards', active: true });
      shop.products.set('p-5/v-51', {
        id: 'p-5',
        variant_id: 'v-51',
        sku: 'OWN-51',
        title: 'Poster - large',
        active: true,
      });
      shop.products.set('p-5/v-52', {
        id: 'p-5',
        variant_id: 'v-52',
        sku: 'OWN-52',
        title: 'Poster - small',
        active: true,
      });
      shop.products.set('p-6', { id: 'p-6', sku: null, title: 'Handmade print', active: true });
      shop.products.set('p-7', { id: 'p-7', sku: 'LEGACY-7', title: 'Old stock', active: true });
      t = await startTestService(this, backend, {}, { connectors: [referenceConnector] });
      const r = await t.reseller();
      key = r.key;
      await t.admin('POST', `/resellers/${r.id}/wallet/top-ups`, { amountCents: 10_000_000 });
      for (const sku of ['CARD-01', 'FLYER-A5', 'POSTER-X']) await createProduct(sku);
      const store = await t.api(key, 'POST', '/stores', {
        platform: referenceConnector.manifest.platform,
        shopUrl: shop.url,
        token: 'tok-1',
      });
      expect(store.status, JSON.stringify(store.body)).to.equal(201);
      storeId = store.body.data.id;
      // The listings read, and the first (catch-up) poll done: a poll still to come would ingest the orders the tests
      // put in the shop beside the tests' own ingests (an attempt more, or a skipped order placed before its retry).
      await waitFor(
        'the listings sync and the first poll',
        async () => {
          const row = await storeRow();
          return row.listings_synced_at !== null && row.listings_run_started_at === null && row.last_polled_at !== null;
        },
        20_000,
      );
    });
    after(async () => {
      await t?.close();
      await shop?.close();
      await files?.close();
    });

    it('prints a line by its SKU first, then by its variant link, then by its product link', async () => {
      await link({ resellerProduct: 'FLYER-A5', externalProductId: 'p-1' });
      await link({ resellerProduct: 'FLYER-A5', externalProductId: 'p-5' });
      const variant = await link({ resellerProduct: 'POSTER-X', externalProductId: 'p-5', externalVariantId: 'v-51' });
      expect(variant.data).to.include({
        sku: 'POSTER-X',
        externalProductId: 'p-5',
        externalVariantId: 'v-51',
        discovered: false,
      });

      const row = await ingestOrder([
        { id: '', sku: 'CARD-01', qty: 250, product_id: 'p-1', variant_id: 'v-1' },
        { id: '', sku: 'OWN-51', qty: 500, product_id: 'p-5', variant_id: 'v-51' },
        { id: '', sku: 'OWN-52', qty: 100, product_id: 'p-5', variant_id: 'v-52' },
      ]);
      expect(row.status, String(row.error)).to.equal('placed');
      expect(row.skipped_lines).to.deep.equal([]);
      expect(await printedSkus(row.order_id)).to.deep.equal(['CARD-01', 'POSTER-X', 'FLYER-A5']);

      const [card, large, small, handmade] = [
        await listing('p-1', 'v-1'),
        await listing('p-5', 'v-51'),
        await listing('p-5', 'v-52'),
        await listing('p-6', null),
      ];
      expect([card.match.by, card.resellerProduct.sku, card.match.linkId]).to.deep.equal(['sku', 'CARD-01', null]);
      expect([large.match.by, large.resellerProduct.sku, large.match.linkId]).to.deep.equal([
        'link',
        'POSTER-X',
        variant.data.id,
      ]);
      expect([small.match.by, small.match.resellerProduct.sku]).to.deep.equal(['link', 'FLYER-A5']);
      expect(handmade.match).to.deep.equal({ by: null, resellerProduct: null, linkId: null });
      const unmatched = (await t.api(key, 'GET', `/stores/${storeId}/listings?matched=false`)).body.data;
      expect(unmatched.map((l: { externalProductId: string }) => l.externalProductId)).to.deep.equal(['p-6', 'p-7']);
    });

    it('never maps through a discovered link; linking that listing by hand makes it a mapping', async () => {
      // CARD-01's line at p-1/v-1 was discovered above; the same listing sold under another SKU is not CARD-01.
      const links = (await t.api(key, 'GET', `/stores/${storeId}/links`)).body.data as Array<Record<string, unknown>>;
      expect(links.find((l) => l.sku === 'CARD-01')).to.include({
        externalProductId: 'p-1',
        externalVariantId: 'v-1',
        discovered: true,
      });
      await t.api(
        key,
        'DELETE',
        `/stores/${storeId}/links/${(links.find((l) => l.sku === 'FLYER-A5' && l.externalProductId === 'p-1') as { id: string }).id}`,
      );
      const skipped = await ingestOrder([{ id: '', sku: 'RENAMED', qty: 250, product_id: 'p-1', variant_id: 'v-1' }]);
      expect(skipped.status).to.equal('no_print_lines');
      expect(skipped.skipped_product_ids).to.deep.equal(['p-1']);

      const made = await link({ resellerProduct: 'CARD-01', externalProductId: 'p-1', externalVariantId: 'v-1' });
      expect(made.data).to.include({ id: links.find((l) => l.sku === 'CARD-01')!.id, discovered: false });
      const placed = await ingestOrder([{ id: '', sku: 'RENAMED', qty: 250, product_id: 'p-1', variant_id: 'v-1' }]);
      expect(await printedSkus(placed.order_id)).to.deep.equal(['CARD-01']);
    });

    it('unmaps with DELETE /stores/{id}/links/{linkId}: the next order of the listing is skipped, and the product can be deleted again', async () => {
      const product = await createProduct('MUG-01');
      const made = await link({ resellerProduct: 'MUG-01', externalProductId: 'p-6' });
      const guarded = await t.api(key, 'DELETE', '/reseller-products/MUG-01');
      expect(guarded.status).to.equal(409);
      expect(guarded.body.error.code).to.equal('reseller_product_linked');
      const mapped = await ingestOrder([{ id: '', sku: null, qty: 100, product_id: 'p-6' }]);
      expect(await printedSkus(mapped.order_id)).to.deep.equal(['MUG-01']);

      const removed = await t.api(key, 'DELETE', `/stores/${storeId}/links/${made.data.id}`);
      expect(removed.status, JSON.stringify(removed.body)).to.equal(200);
      expect((await listing('p-6', null)).match.by).to.equal(null);
      const skipped = await ingestOrder([{ id: '', sku: null, qty: 100, product_id: 'p-6' }]);
      expect(skipped.status).to.equal('no_print_lines');
      expect(skipped.skipped_lines).to.deep.equal([
        { sku: null, quantity: 100, reason: 'no SKU, and its listing is mapped to none of your products' },
      ]);
      expect((await t.api(key, 'DELETE', `/reseller-products/${product.id}`)).status).to.equal(200);
      expect((await t.api(key, 'DELETE', `/stores/${storeId}/links/${made.data.id}`)).status).to.equal(404);
    });

    it('retries the skipped orders of a listing in bulk once it is mapped, each placed once however often it is asked', async () => {
      const before = await t.api(key, 'GET', `/stores/${storeId}/ingests?status=skipped&externalProductId=p-6`);
      const waiting = before.body.data.map((i: { id: string }) => i.id);
      const other = await ingestOrder([{ id: '', sku: 'NOT-OURS', qty: 100, product_id: 'p-9' }]);
      expect(waiting).to.have.length.greaterThan(0);
      await link({ resellerProduct: 'POSTER-X', externalProductId: 'p-6' });

      const [first, second] = await Promise.all(
        [0, 1].map(() =>
          t.api(key, 'POST', `/stores/${storeId}/ingests/retry`, { status: 'skipped', externalProductId: 'p-6' }),
        ),
      );
      expect(first!.status, JSON.stringify(first!.body)).to.equal(202);
      expect(first!.body.data).to.include({ storeId, status: 'skipped', externalProductId: 'p-6', more: false });
      expect(first!.body.data.queued).to.equal(waiting.length);
      expect(second!.status).to.equal(202);
      await waitFor(
        'the skipped orders placed',
        async () => {
          const rows = await t.service.db
            .selectFrom('store_ingests')
            .select('order_id')
            .where('id', 'in', waiting)
            .execute();
          return rows.every((r) => r.order_id !== null);
        },
        20_000,
      );
      for (const id of waiting) {
        const row = await t.service.db
          .selectFrom('store_ingests')
          .selectAll()
          .where('id', '=', id)
          .executeTakeFirstOrThrow();
        const placed = await t.service.db
          .selectFrom('orders')
          .select('id')
          .where('store_id', '=', storeId)
          .where('external_order_id', '=', row.external_order_id)
          .execute();
        expect(placed.map((o) => o.id)).to.deep.equal([row.order_id]);
        expect(await printedSkus(row.order_id)).to.deep.equal(['POSTER-X']);
      }
      // Another listing's skipped order was not retried; nothing of p-6 is left.
      expect((await ingestRow(other.external_order_id)).attempts).to.equal(1);
      expect(
        (await t.api(key, 'GET', `/stores/${storeId}/ingests?status=skipped&externalProductId=p-6`)).body.data,
      ).to.deep.equal([]);
      expect(
        (await t.api(key, 'POST', `/stores/${storeId}/ingests/retry`, { status: 'skipped', externalProductId: 'p-6' }))
          .body.data.queued,
      ).to.equal(0);
    });

    it("finds a listing's skipped orders recorded before their listings were (by the listing's SKU), and retries them", async () => {
      const legacy = await ingestOrder([{ id: '', sku: 'legacy-7', qty: 100, product_id: 'p-7' }]);
      await t.service.db
        .updateTable('store_ingests')
        .set({ skipped_product_ids: [] })
        .where('id', '=', legacy.id)
        .execute();
      const found = await t.api(key, 'GET', `/stores/${storeId}/ingests?status=skipped&externalProductId=p-7`);
      expect(found.body.data.map((i: { id: string }) => i.id)).to.deep.equal([legacy.id]);
      expect(
        (await t.api(key, 'GET', `/stores/${storeId}/ingests?status=skipped&externalProductId=p-5`)).body.data,
      ).to.deep.equal([]);
      await link({ resellerProduct: 'POSTER-X', externalProductId: 'p-7' });
      const retry = await t.api(key, 'POST', `/stores/${storeId}/ingests/retry`, {
        status: 'skipped',
        externalProductId: 'p-7',
      });
      expect(retry.body.data).to.include({ queued: 1 });
      const orderId = await waitFor(
        'the legacy order placed',
        async () => (await ingestRow(legacy.external_order_id)).order_id,
        20_000,
      );
      expect(await printedSkus(orderId)).to.deep.equal(['POSTER-X']);
    });

    it('refuses what cannot be mapped or retried, with the error shape and nothing written', async () => {
      const count = async () =>
        (await t.service.db.selectFrom('store_links').select('id').where('store_id', '=', storeId).execute()).length;
      const links = await count();
      const unknownProduct = await link({ resellerProduct: 'NO-SUCH-SKU', externalProductId: 'p-5' }, 404);
      expect(unknownProduct.error.code).to.equal('not_found');
      const unknownListing = await link({ resellerProduct: 'FLYER-A5', externalProductId: 'p-404' }, 422);
      expect(unknownListing.error).to.include({ code: 'unknown_listing' });
      expect(unknownListing.error.message).to.contain('p-404');
      const unknownVariant = await link(
        { resellerProduct: 'FLYER-A5', externalProductId: 'p-5', externalVariantId: 'v-404' },
        422,
      );
      expect(unknownVariant.error.details).to.deep.equal([{ field: 'externalVariantId', code: 'unknown_listing' }]);
      const variantAlone = await link({ resellerProduct: 'FLYER-A5', externalVariantId: 'v-51' }, 400);
      expect(variantAlone.error.code).to.equal('invalid_request');
      expect(variantAlone.error.message).to.contain('externalProductId is required with externalVariantId');
      const taken = await link(
        { resellerProduct: 'FLYER-A5', externalProductId: 'p-5', externalVariantId: 'v-51' },
        409,
      );
      expect(taken.error.code).to.equal('listing_already_mapped');
      expect(taken.error.message).to.contain('POSTER-X');
      expect(await count()).to.equal(links);

      const badStatus = await t.api(key, 'POST', `/stores/${storeId}/ingests/retry`, { status: 'failed' });
      expect(badStatus.status).to.equal(400);
      expect(badStatus.body.error.code).to.equal('invalid_request');
      expect((await t.api(key, 'POST', '/stores/sto_unknown/ingests/retry', { status: 'skipped' })).status).to.equal(
        404,
      );
      expect(
        (
          await t.api(key, 'POST', '/stores/sto_unknown/links', {
            resellerProduct: 'FLYER-A5',
            externalProductId: 'p-5',
          })
        ).status,
      ).to.equal(404);
    });

    it("keeps each reseller to their own: another reseller cannot map, list, unmap or retry this store's listings, nor map to this reseller's product", async () => {
      const other = await t.reseller();
      const theirs = await t.api(other.key, 'POST', '/reseller-products', {
        sku: 'THEIRS-1',
        title: 'Theirs',
        productId: 'business-cards',
        fileUrl: `${files.url}/art/flyer.pdf`,
      });
      expect(theirs.status).to.equal(201);
      const mine = (await t.api(key, 'GET', `/stores/${storeId}/links`)).body.data as Array<{ id: string }>;
      const links = mine.length;
      for (const [method, path, body] of [
        ['POST', `/stores/${storeId}/links`, { resellerProduct: 'THEIRS-1', externalProductId: 'p-5' }],
        ['GET', `/stores/${storeId}/listings`, undefined],
        ['GET', `/stores/${storeId}/ingests?status=skipped`, undefined],
        ['DELETE', `/stores/${storeId}/links/${mine[0]!.id}`, undefined],
        ['POST', `/stores/${storeId}/ingests/retry`, { status: 'skipped' }],
      ] as const) {
        const res = await t.api(other.key, method, path, body);
        expect(res.status, `${method} ${path}`).to.equal(404);
        expect(res.body.error.code).to.equal('not_found');
      }
      // Nor can this reseller map a listing to the other's product.
      expect((await link({ resellerProduct: 'THEIRS-1', externalProductId: 'p-5' }, 404)).error.code).to.equal(
        'not_found',
      );
      expect((await t.api(key, 'GET', `/stores/${storeId}/links`)).body.data).to.have.length(links);
    });

    it('refuses a bulk retry of a disconnected store with 409 store_disconnected', async () => {
      expect((await t.api(key, 'DELETE', `/stores/${storeId}`)).status).to.equal(200);
      const res = await t.api(key, 'POST', `/stores/${storeId}/ingests/retry`, { status: 'skipped' });
      expect(res.status).to.equal(409);
      expect(res.body.error.code).to.equal('store_disconnected');
    });
  });
}
