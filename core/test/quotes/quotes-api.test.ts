import { expect } from 'chai';
import { describeEachBackend } from '../helpers/test-service.ts';
import { placeOrder, RECIPIENT, startFileServer } from '../orders/orders-helpers.ts';
import type { TestHttpsServer } from '../helpers/https-server.ts';

describeEachBackend('POST /quotes', (get) => {
  let key: string;
  let files: TestHttpsServer;
  before(async () => {
    const t = get();
    const r = await t.reseller({ discountPercent: 10 });
    key = r.key;
    await t.admin('POST', `/resellers/${r.id}/wallet/top-ups`, { amountCents: 10_000_000 });
    files = await startFileServer();
  });
  after(() => files.close());

  it('prices three lines with discount, VAT and shipping; totals are the sums of the parts', async () => {
    const res = await get().api(key, 'POST', '/quotes', {
      country: 'DE',
      lines: [
        { productId: 'flyers-a5', quantity: 500, options: { paper: 'mc170' } },
        { productId: 'visitenkarten', quantity: 250 },
        { productId: 'posters', quantity: 3, options: { size: 'a0' } },
      ],
    });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    const q = res.body.data;
    expect(q.lines).to.have.length(3);
    expect(q.lines[1].productId).to.equal('business-cards');
    expect(q.lines[2].options).to.deep.equal({ size: 'a0', paper: 'photo200' });
    expect(q.lines[0].derivedOptions).to.have.keys(['printProcess', 'sheetFormat', 'bundling', 'packaging']);
    for (const l of q.lines) {
      expect(l.vatRate).to.equal('19');
      expect(l.discountCents).to.equal(l.publicNetCents - l.netCents);
      expect(l.discountCents).to.be.greaterThan(0);
    }
    expect(q.totals.totalCents).to.equal(q.totals.netCents + q.totals.shippingCents + q.totals.vatCents);
    expect(q.lines[2].unitNetPrice).to.match(/^\d+(\.\d+)?$/);
  });

  it('keeps sub-cent unit prices exact', async () => {
    const q = (
      await get().api(key, 'POST', '/quotes', { country: 'NL', lines: [{ productId: 'flyers-a6', quantity: 10000 }] })
    ).body.data;
    expect(q.lines[0].unitPublicPrice).to.equal('1.6995');
    expect(q.lines[0].unitNetPrice).to.equal('1.52955');
  });

  it('accepts a quote line’s options sent back unchanged, to quotes and to orders, at the same price', async () => {
    const t = get();
    const first = (
      await t.api(key, 'POST', '/quotes', {
        country: 'NL',
        lines: [{ productId: 'business-cards', quantity: 500, options: { finish: 'soft-touch' } }],
      })
    ).body.data;
    const again = await t.api(key, 'POST', '/quotes', {
      country: 'NL',
      lines: [{ productId: 'business-cards', quantity: 500, options: first.lines[0].options }],
    });
    expect(again.body.data.totals).to.deep.equal(first.totals);
    const order = await placeOrder(t, key, {
      lines: [
        {
          productId: 'business-cards',
          quantity: 500,
          options: first.lines[0].options,
          fileUrl: `${files.url}/art/flyer.pdf`,
        },
      ],
      recipient: RECIPIENT,
    });
    expect(order.status).to.equal(201);
    expect(order.body.data.totals.totalCents).to.equal(first.totals.totalCents);
    expect(order.body.data.lines[0].unitPrice).to.equal(first.lines[0].unitNetPrice);
  });

  it('answers every problem in one 422 with line, field and code', async () => {
    const res = await get().api(key, 'POST', '/quotes', {
      country: 'NL',
      lines: [
        { productId: 'flyers-a5', quantity: 300, options: { printProcess: 'offset' } },
        { productId: 'no-such-thing', quantity: 1 },
        { resellerSku: 'NOT-MINE', quantity: 1 },
        { productId: 'posters', quantity: 1, options: { size: 'a0', paper: 'satin170' } },
      ],
    });
    expect(res.status).to.equal(422);
    expect(res.body.error.code).to.equal('invalid_options');
    const summary = res.body.error.details.map((d: { line: number; code: string }) => `${d.line}:${d.code}`);
    expect(summary).to.deep.equal([
      '0:invalid_options',
      '0:run_unavailable',
      '1:unknown_product',
      '2:unknown_sku',
      '3:option_conflict',
    ]);
    expect(res.body.error.details[0].allowedKeys).to.deep.equal(['size', 'paper', 'sides', 'finish']);
    expect(res.body.error.details[1].nearestQuantity).to.equal(250);
  });

  it('refuses an unsupported country with the supported list', async () => {
    const res = await get().api(key, 'POST', '/quotes', {
      country: 'US',
      lines: [{ productId: 'flyers-a5', quantity: 250 }],
    });
    expect(res.status).to.equal(422);
    expect(res.body.error.code).to.equal('unsupported_country');
    expect(res.body.error.details[0].allowedValues).to.include.members(['NL', 'DE', 'GB', 'CH', 'NO']);
  });

  it('answers a malformed body with 400', async () => {
    const t = get();
    for (const body of [
      {},
      { country: 'NL' },
      { country: 'Netherlands', lines: [{ productId: 'x', quantity: 1 }] },
      { country: 'NL', lines: [{ quantity: 1 }] },
      { country: 'NL', lines: [{ productId: 'x', resellerSku: 'y', quantity: 1 }] },
      { country: 'NL', lines: [{ productId: 'x', quantity: 1.5 }] },
    ]) {
      const res = await t.api(key, 'POST', '/quotes', body);
      expect(res.status, JSON.stringify(body)).to.equal(400);
      expect(res.body.error.code).to.equal('invalid_request');
    }
  });
});
