import { expect } from 'chai';
import { wooCommerceConnector } from '@print-api/connector-woocommerce';
import { FakeWooStore } from '../../../connectors/woocommerce/test/fake-woo-store.ts';
import { connectWooStore, wooOrder, type WooOrderJson } from '../../../connectors/woocommerce/test/woo-fixtures.ts';
import type { TestBrowser } from '../helpers/browser.ts';
import {
  DASHBOARD_PUBLIC_URL as PUBLIC_URL,
  dashboardBrowserSuite,
  signInToDashboard,
} from '../helpers/dashboard-browser.ts';
import { eventually, listingsSyncedAt, posterReseller, POSTER_SKU } from '../helpers/connector-e2e.ts';
import type { TestHttpsServer } from '../helpers/https-server.ts';
import type { TestService } from '../helpers/test-service.ts';
import { scaled } from '../helpers/wait.ts';

/** The merchant's own SKU for the poster listing: none of the reseller's. */
const OWN_SKU = 'TULIP-FIELDS-A2';

/**
 * The dashboard's "Map to product" in headless Chromium: a WooCommerce listing sold under the
 * merchant's own SKU is mapped to the reseller's product from the store's page (a CSRF-protected
 * form), which then offers to retry the store order skipped before; the retry places it once.
 */
describe('mapping a store listing in the dashboard (real PostgreSQL + Redis, Chromium)', function () {
  this.timeout(scaled(240_000));
  let t: TestService;
  let files: TestHttpsServer;
  let b: TestBrowser | undefined;
  dashboardBrowserSuite([wooCommerceConnector], (started) => ({ t, files, b } = started));

  const ingest = (storeId: string, orderId: number) =>
    t.service.db
      .selectFrom('store_ingests')
      .selectAll()
      .where('store_id', '=', storeId)
      .where('external_order_id', '=', String(orderId))
      .executeTakeFirst();

  it('maps an unmatched listing to a product, then retries its skipped order from the offer; the form needs its CSRF token', async () => {
    const r = await posterReseller(t, files);
    const shop = new FakeWooStore({
      host: 'dashboard-mapping.example.com',
      ourBaseUrl: t.baseUrl,
      publicUrl: PUBLIC_URL,
    });
    shop.saveProduct({ id: 311, name: 'Poster A2 - Tulpenvelden', type: 'simple', status: 'publish', sku: OWN_SKU });
    const storeId = await connectWooStore(t, r.key, shop);
    await eventually(() => listingsSyncedAt(t, storeId), 'the listings sync');
    const order: WooOrderJson = wooOrder();
    order.line_items = order.line_items.map((l) => ({ ...l, sku: OWN_SKU }));
    expect(await shop.deliver(shop.save(order), 'order.created')).to.equal(200);
    await eventually(async () => (await ingest(storeId, 1842))?.status === 'no_print_lines', 'the order skipped');

    const page = await b!.page();
    await signInToDashboard(page, t, r.key);
    await page.goto(`${t.baseUrl}/dashboard/stores/${storeId}`);

    // Without its CSRF token, the same form is refused and maps nothing.
    const forged = await page.request.post(`${t.baseUrl}/dashboard/stores/${storeId}/listings/map`, {
      form: { externalProductId: '311', resellerProduct: POSTER_SKU },
      headers: { origin: t.baseUrl },
    });
    expect(forged.status()).to.equal(403);
    expect(
      (await t.api(r.key, 'GET', `/stores/${storeId}/links`)).body.data.filter(
        (l: { discovered: boolean }) => !l.discovered,
      ),
    ).to.deep.equal([]);

    const form = page.getByRole('form', { name: 'Map Poster A2 - Tulpenvelden to a product' });
    await form
      .getByLabel('Your product for Poster A2 - Tulpenvelden')
      .selectOption({ label: `${POSTER_SKU} (Tulip poster A2)` });
    await form.getByRole('button', { name: 'Map to product' }).click();
    await page.waitForURL(/done=listing-mapped/);
    expect(await page.getByRole('status').textContent()).to.contain('The listing is mapped');
    const matched = page.getByRole('region', { name: 'Matched listings' });
    expect(await matched.getByRole('row', { name: /Poster A2 - Tulpenvelden/ }).textContent())
      .to.contain(POSTER_SKU)
      .and.contain('mapped');
    expect(await page.getByRole('form', { name: 'Map Poster A2 - Tulpenvelden to a product' }).count()).to.equal(0);

    await page.getByRole('button', { name: 'Retry 1 skipped order' }).click();
    await page.waitForURL(/done=skipped-retried/);
    expect(await page.getByRole('status').textContent()).to.contain('being retried');
    const orderId = await eventually(async () => (await ingest(storeId, 1842))?.order_id, 'the skipped order placed');
    await eventually(
      async () => {
        await page.goto(`${t.baseUrl}/dashboard/stores/${storeId}`);
        return (await page.getByRole('link', { name: orderId }).count()) > 0;
      },
      'the placed order shown',
      30_000,
    );
    const placed = await t.service.db
      .selectFrom('orders')
      .select('id')
      .where('store_id', '=', storeId)
      .where('external_order_id', '=', '1842')
      .execute();
    expect(placed.map((o) => o.id)).to.deep.equal([orderId]);
    // Nothing left to offer.
    await page.goto(`${t.baseUrl}/dashboard/stores/${storeId}?mapped=311`);
    expect(await page.getByTestId('retry-skipped').count()).to.equal(0);
    await page.close();
  });
});
