import { expect } from 'chai';
import { describeMigration } from '../helpers/migration-suite.ts';

const MODE_MIGRATION = '0013_reseller_products_mode';

describeMigration(
  'reseller products become per mode',
  MODE_MIGRATION,
  ({ db: database, migrateBefore, migrateRest }) => {
    it('keeps each product in both modes: live with its id, a test copy, and test stores linked to the copy', async () => {
      const db = database();
      await migrateBefore();
      const at = new Date('2026-01-02T03:04:05.000Z');
      await db
        .insertInto('resellers')
        .values({ id: 'rsl_m', name: 'M', email: 'm@example.com', phone: '+31', status: 'approved', discount_bps: 0 })
        .execute();
      const product = (id: string, sku: string) => ({
        id,
        reseller_id: 'rsl_m',
        sku,
        sku_key: sku.toLowerCase(),
        title: `Title ${sku}`,
        product_id: 'posters',
        options: JSON.stringify({ size: 'a2' }),
        file_url: null,
        active: true,
        created_at: at,
        updated_at: at,
      });
      await db
        .insertInto('reseller_products')
        .values([product('rp_a', 'POSTER-A'), product('rp_b', 'POSTER-B')])
        .execute();
      const store = (id: string, mode: string, externalId: string) => ({
        id,
        reseller_id: 'rsl_m',
        mode,
        platform: 'SHOPIFY',
        external_id: externalId,
        name: id,
        credentials_sealed: 'x',
        status: 'connected',
        created_at: at,
        updated_at: at,
      });
      await db
        .insertInto('stores')
        .values([store('sto_live', 'live', 'shop-1'), store('sto_test', 'test', 'shop-2')])
        .execute();
      const link = (id: string, storeId: string, productId: string) => ({
        id,
        store_id: storeId,
        reseller_product_id: productId,
        sku: 'POSTER-A',
        external_product_id: '1',
        external_variant_id: null,
        discovered: false,
        created_at: at,
      });
      await db
        .insertInto('store_links')
        .values([link('lnk_live', 'sto_live', 'rp_a'), link('lnk_test', 'sto_test', 'rp_a')])
        .execute();

      expect(await migrateRest()).to.include(MODE_MIGRATION);

      const rows = await db
        .selectFrom('reseller_products')
        .select(['id', 'mode', 'sku', 'title', 'options', 'created_at'])
        .orderBy('sku')
        .orderBy('mode')
        .execute();
      expect(rows.map((r) => [r.sku, r.mode])).to.deep.equal([
        ['POSTER-A', 'live'],
        ['POSTER-A', 'test'],
        ['POSTER-B', 'live'],
        ['POSTER-B', 'test'],
      ]);
      expect(rows.filter((r) => r.mode === 'live').map((r) => r.id)).to.deep.equal(['rp_a', 'rp_b']);
      const testCopyOfA = rows.find((r) => r.sku === 'POSTER-A' && r.mode === 'test')!;
      expect(testCopyOfA.id).to.match(/^rp_[0-9A-Z]{26}$/);
      expect(testCopyOfA).to.deep.include({ title: 'Title POSTER-A', options: { size: 'a2' }, created_at: at });
      const links = await db.selectFrom('store_links').select(['id', 'reseller_product_id']).orderBy('id').execute();
      expect(links).to.deep.equal([
        { id: 'lnk_live', reseller_product_id: 'rp_a' },
        { id: 'lnk_test', reseller_product_id: testCopyOfA.id },
      ]);
      // One SKU per reseller and mode (regardless of case), and every product has a mode.
      const again = db
        .insertInto('reseller_products')
        .values({ ...product('rp_c', 'poster-a'), mode: 'test' })
        .execute();
      expect(
        await again.then(
          () => 'inserted',
          (err: { code?: string }) => err.code,
        ),
      ).to.equal('23505');
      const modeless = db.insertInto('reseller_products').values(product('rp_d', 'POSTER-D')).execute();
      expect(
        await modeless.then(
          () => 'inserted',
          (err: { code?: string }) => err.code,
        ),
      ).to.equal('23502');
    });
  },
);
