import { expect } from 'chai';
import type { TestHttpsServer } from '../helpers/https-server.ts';
import { describeEachBackend } from '../helpers/test-service.ts';
import { placeOrder, RECIPIENT, startFileServer } from '../orders/orders-helpers.ts';

describeEachBackend('reseller products', (get) => {
  let files: TestHttpsServer;
  let key: string;
  before(async () => {
    files = await startFileServer();
    const t = get();
    const r = await t.reseller();
    key = r.key;
    await t.admin('POST', `/resellers/${r.id}/wallet/top-ups`, { amountCents: 1_000_000 });
  });
  after(() => files.close());

  it('creates a product with its fixed options (defaults added) and finds it by id or SKU', async () => {
    const t = get();
    const res = await t.api(key, 'POST', '/reseller-products', {
      sku: 'Card-Soft',
      title: 'Soft-touch cards',
      productId: 'visitekaartjes',
      options: { paper: 'mc400', finish: 'soft-touch' },
      fileUrl: `${files.url}/art/flyer.pdf`,
    });
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
    expect(res.body.data).to.include({ sku: 'Card-Soft', productId: 'business-cards', active: true, links: 0 });
    expect(res.body.data.options).to.deep.equal({
      paper: 'mc400',
      sides: '4/4',
      finish: 'soft-touch',
      corners: 'square',
    });
    expect((await t.api(key, 'GET', `/reseller-products/${res.body.data.id}`)).body.data.sku).to.equal('Card-Soft');
    expect((await t.api(key, 'GET', '/reseller-products/card-soft')).body.data.id).to.equal(res.body.data.id);
  });

  it('refuses a SKU that exists in any case (409), bad SKUs (400) and bad options (422 like quotes)', async () => {
    const t = get();
    const dup = await t.api(key, 'POST', '/reseller-products', {
      sku: 'CARD-SOFT',
      title: 'x',
      productId: 'business-cards',
    });
    expect(dup.status).to.equal(409);
    expect(dup.body.error.code).to.equal('sku_exists');
    expect(
      (await t.api(key, 'POST', '/reseller-products', { sku: 'has space', title: 'x', productId: 'business-cards' }))
        .status,
    ).to.equal(400);
    expect(
      (await t.api(key, 'POST', '/reseller-products', { sku: 'x'.repeat(65), title: 'x', productId: 'business-cards' }))
        .status,
    ).to.equal(400);
    const bad = await t.api(key, 'POST', '/reseller-products', {
      sku: 'BAD',
      title: 'x',
      productId: 'business-cards',
      options: { printProcess: 'offset', paper: 'mc350', finish: 'spot-uv' },
    });
    expect(bad.status).to.equal(422);
    expect(bad.body.error.details.map((d: { code: string }) => d.code)).to.deep.equal([
      'invalid_options',
      'option_conflict',
    ]);
    const unknown = await t.api(key, 'POST', '/reseller-products', { sku: 'UNK', title: 'x', productId: 'nothing' });
    expect(unknown.status).to.equal(422);
    const file = await t.api(key, 'POST', '/reseller-products', {
      sku: 'FILE',
      title: 'x',
      productId: 'business-cards',
      fileUrl: `${files.url}/art/fake.pdf`,
    });
    expect(file.status).to.equal(422);
    expect(file.body.error.code).to.equal('invalid_file_url');
  });

  it('patches fields, keeps SKUs unique, and lists with q and active filters', async () => {
    const t = get();
    await t.api(key, 'POST', '/reseller-products', {
      sku: 'POSTER-A0',
      title: 'Big poster',
      productId: 'posters',
      options: { size: 'a0' },
    });
    const patched = await t.api(key, 'PATCH', '/reseller-products/POSTER-A0', { title: 'Huge poster', active: false });
    expect(patched.body.data).to.include({ title: 'Huge poster', active: false });
    expect(patched.body.data.options).to.deep.equal({ size: 'a0', paper: 'photo200' });
    expect((await t.api(key, 'PATCH', '/reseller-products/POSTER-A0', { sku: 'card-soft' })).status).to.equal(409);
    expect(
      (await t.api(key, 'PATCH', '/reseller-products/POSTER-A0', { options: { paper: 'satin170' } })).status,
    ).to.equal(422);
    expect((await t.api(key, 'PATCH', '/reseller-products/POSTER-A0', {})).status).to.equal(400);
    expect(
      (await t.api(key, 'GET', '/reseller-products?active=false')).body.data.map((p: { sku: string }) => p.sku),
    ).to.deep.equal(['POSTER-A0']);
    expect(
      (await t.api(key, 'GET', '/reseller-products?q=soft')).body.data.map((p: { sku: string }) => p.sku),
    ).to.deep.equal(['Card-Soft']);
    expect((await t.api(key, 'GET', '/reseller-products?active=maybe')).status).to.equal(400);
  });

  it('prices and orders by SKU with the fixed options and default file; inactive SKUs are refused', async () => {
    const t = get();
    const quote = await t.api(key, 'POST', '/quotes', {
      country: 'NL',
      lines: [{ resellerSku: 'card-soft', quantity: 250, options: { finish: 'none' } }],
    });
    expect(quote.status).to.equal(200);
    expect(quote.body.data.lines[0].options.finish).to.equal('soft-touch');
    const order = await placeOrder(t, key, {
      lines: [{ resellerSku: 'CARD-SOFT', quantity: 250 }],
      recipient: RECIPIENT,
    });
    expect(order.status, JSON.stringify(order.body)).to.equal(201);
    expect(order.body.data.state).to.equal('SUBMITTED');
    expect(order.body.data.lines[0]).to.include({
      resellerSku: 'Card-Soft',
      fileUrl: `${files.url}/art/flyer.pdf`,
      fileStatus: 'ok',
    });
    const inactive = await t.api(key, 'POST', '/quotes', {
      country: 'NL',
      lines: [{ resellerSku: 'POSTER-A0', quantity: 1 }],
    });
    expect(inactive.status).to.equal(422);
    expect(inactive.body.error.details[0].code).to.equal('inactive_reseller_product');
  });

  it('deletes a product that is not linked, and hides it from other accounts', async () => {
    const t = get();
    const other = await t.reseller();
    expect((await t.api(other.key, 'GET', '/reseller-products/POSTER-A0')).status).to.equal(404);
    expect((await t.api(other.key, 'DELETE', '/reseller-products/POSTER-A0')).status).to.equal(404);
    const res = await t.api(key, 'DELETE', '/reseller-products/POSTER-A0');
    expect(res.body.data).to.include({ deleted: true });
    expect((await t.api(key, 'GET', '/reseller-products/POSTER-A0')).status).to.equal(404);
  });

  it("keeps test and live products apart: a key sees, changes, prices and orders with its own mode's only", async () => {
    const t = get();
    const r = await t.reseller();
    const liveKey = r.key;
    const testKey = (await t.admin('POST', `/resellers/${r.id}/api-keys`, { mode: 'test' })).body.data.key as string;
    await t.admin('POST', `/resellers/${r.id}/wallet/top-ups`, { amountCents: 1_000_000 });
    const live = await t.api(liveKey, 'POST', '/reseller-products', {
      sku: 'MODE-CARD',
      title: 'Live cards',
      productId: 'business-cards',
      fileUrl: `${files.url}/art/flyer.pdf`,
    });
    expect(live.status, JSON.stringify(live.body)).to.equal(201);
    // Neither by id nor by SKU, nor in the list, nor to change or delete.
    for (const ref of [live.body.data.id, 'MODE-CARD', 'mode-card']) {
      expect((await t.api(testKey, 'GET', `/reseller-products/${ref}`)).status, ref).to.equal(404);
      expect(
        (await t.api(testKey, 'PATCH', `/reseller-products/${ref}`, { title: 'Changed by a test key' })).status,
        ref,
      ).to.equal(404);
      expect((await t.api(testKey, 'DELETE', `/reseller-products/${ref}`)).status, ref).to.equal(404);
    }
    expect((await t.api(testKey, 'GET', '/reseller-products')).body.data).to.deep.equal([]);
    const quote = await t.api(testKey, 'POST', '/quotes', {
      country: 'NL',
      lines: [{ resellerSku: 'MODE-CARD', quantity: 250 }],
    });
    expect(quote.status).to.equal(422);
    expect(quote.body.error.details[0]).to.include({ field: 'resellerSku', code: 'unknown_sku' });
    expect(quote.body.error.details[0].message).to.contain('test');
    expect(
      (await placeOrder(t, testKey, { lines: [{ resellerSku: 'MODE-CARD', quantity: 250 }], recipient: RECIPIENT }))
        .status,
    ).to.equal(422);

    // The same SKU in test mode is another product, with its own options; the live one is untouched.
    const sandbox = await t.api(testKey, 'POST', '/reseller-products', {
      sku: 'mode-card',
      title: 'Test cards',
      productId: 'business-cards',
      options: { finish: 'soft-touch' },
      fileUrl: `${files.url}/art/flyer.pdf`,
    });
    expect(sandbox.status, JSON.stringify(sandbox.body)).to.equal(201);
    expect(sandbox.body.data.id).to.not.equal(live.body.data.id);
    expect(
      (
        await t.api(testKey, 'POST', '/reseller-products', {
          sku: 'MODE-CARD',
          title: 'Again',
          productId: 'business-cards',
        })
      ).status,
    ).to.equal(409);
    const testOrder = await placeOrder(t, testKey, {
      lines: [{ resellerSku: 'MODE-CARD', quantity: 250 }],
      recipient: RECIPIENT,
    });
    expect(testOrder.status, JSON.stringify(testOrder.body)).to.equal(201);
    expect(testOrder.body.data.lines[0]).to.include({ resellerSku: 'mode-card' });
    expect(testOrder.body.data.lines[0].options.finish).to.equal('soft-touch');
    const liveOrder = await placeOrder(t, liveKey, {
      lines: [{ resellerSku: 'MODE-CARD', quantity: 250 }],
      recipient: RECIPIENT,
    });
    expect(liveOrder.status, JSON.stringify(liveOrder.body)).to.equal(201);
    expect(liveOrder.body.data.lines[0]).to.include({ resellerSku: 'MODE-CARD' });
    expect(liveOrder.body.data.lines[0].options.finish).to.not.equal('soft-touch');
    expect(
      (await t.api(liveKey, 'GET', '/reseller-products')).body.data.map((p: { title: string }) => p.title),
    ).to.deep.equal(['Live cards']);
    expect((await t.api(testKey, 'DELETE', '/reseller-products/MODE-CARD')).status).to.equal(200);
    expect((await t.api(liveKey, 'GET', '/reseller-products/MODE-CARD')).body.data.title).to.equal('Live cards');
    // And the API description says so on each of the five operations.
    const paths = (await t.api(undefined, 'GET', '/openapi.json')).body.paths;
    const operations = [
      ...Object.values(paths['/reseller-products']),
      ...Object.values(paths['/reseller-products/{id}']),
    ] as Array<{ description?: string }>;
    expect(operations).to.have.length(5);
    for (const op of operations) expect(op.description).to.contain('Test and live products are separate');
  });
});
