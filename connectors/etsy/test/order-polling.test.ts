import { expect } from 'chai';
import type { HttpClient } from '@print-api/connector-kit';
import { settingsSchema } from '../src/config.ts';
import { EtsyClient } from '../src/etsy-client.ts';
import { fetchReceipts } from '../src/order-polling.ts';
import { APP, FakeEtsy, type FakeEtsyShop } from './fake-etsy.ts';
import { receiptOf } from './fake-etsy-receipts.ts';

describe('Etsy receipts fetched by id (the receipts thin order.paid notifications name)', () => {
  const etsy = new FakeEtsy();
  etsy.limitPerSecond = 1000;
  // The fake answers in process: the client's requests go straight to it.
  const http: HttpClient = {
    async request(req) {
      const [status, body, headers = {}] = await etsy.answer(
        new Request(req.url, { method: req.method, headers: req.headers, body: req.body }),
      );
      return { status, headers, body: typeof body === 'string' ? body : JSON.stringify(body) };
    },
    download: async (req) => Promise.reject(new Error(`no downloads in this test: ${req.url}`)),
  };
  const settings = settingsSchema.parse({
    keystring: APP.keystring,
    sharedSecret: APP.sharedSecret,
    apiUrl: 'https://openapi.etsy.test',
  });
  let shop: FakeEtsyShop;
  let client: EtsyClient;
  beforeEach(() => {
    shop = etsy.addShop();
    client = new EtsyClient({ http, settings, accessToken: etsy.issueTokens(shop).accessToken });
  });

  /** Saves paid receipts changed `from`, `from + 1`… seconds ago; answers their ids, newest first. */
  const saved = (count: number, from = 0) => {
    const now = Date.now();
    return Array.from({ length: count }, (_, i) => {
      const id = etsy.nextReceiptId();
      etsy.saveReceipt(
        shop,
        receiptOf({
          id,
          paid: true,
          updatedAt: new Date(now - (from + i) * 1000).toISOString(),
          lines: [{ sku: 'POSTER-TULIPS', quantity: 1 }],
        }),
      );
      return id;
    });
  };
  const lists = () => etsy.seen(new RegExp(`^GET /v3/application/shops/${shop.shopId}/receipts$`));
  const singles = () =>
    etsy
      .seen(new RegExp(`^GET /v3/application/shops/${shop.shopId}/receipts/\\d+$`))
      .map((c) => c.path.split('/').at(-1));

  it('reads 30 recent receipts with one call for the newest 100 by id, in the order asked, each once', async () => {
    const ids = saved(40);
    const asked = [...ids.slice(5, 35)].reverse();
    const orders = await fetchReceipts(client, shop.shopId, [...asked, asked[0]!]);
    expect(orders.map((o) => o.externalId)).to.deep.equal(asked);
    expect(lists().map((c) => Object.fromEntries(c.query))).to.deep.equal([
      { sort_on: 'receipt_id', sort_order: 'desc', limit: '100', offset: '0' },
    ]);
    expect(singles()).to.deep.equal([]);
  });

  it('reads a receipt cancelled since it was paid as it is now (the list has no state filter)', async () => {
    const [paid, cancelled] = saved(2);
    etsy.saveReceipt(
      shop,
      receiptOf({ id: cancelled!, paid: true, cancelled: true, lines: [{ sku: 'POSTER-TULIPS', quantity: 1 }] }),
    );
    const orders = await fetchReceipts(client, shop.shopId, [paid!, cancelled!]);
    expect(orders.map((o) => [o.externalId, o.cancelled])).to.deep.equal([
      [paid, false],
      [cancelled, true],
    ]);
    expect(singles()).to.deep.equal([]);
  });

  it('jumps down to a backlog of older receipts by the density of the ids above them, then reads on until it passes the lowest asked', async () => {
    const backlog = saved(150, 3600);
    saved(1000);
    const asked = backlog.slice(20, 140);
    const orders = await fetchReceipts(client, shop.shopId, asked);
    expect(orders.map((o) => o.externalId)).to.deep.equal(asked);
    const offsets = lists().map((c) => Number(c.query.get('offset')));
    // The first page, then a jump past most of the 1,000 newer ones (not ten pages of them), then on.
    expect(offsets[0]).to.equal(0);
    expect(offsets[1]).to.be.within(800, 1030);
    expect(offsets.length).to.be.at.most(4);
    expect(singles()).to.deep.equal([]);
  });

  it('reads one by one what the pages do not hold, and leaves out the receipts the shop does not have', async () => {
    const [old] = saved(1, 2 * 86400);
    const newer = saved(120);
    const unknown = etsy.nextReceiptId();
    const orders = await fetchReceipts(client, shop.shopId, [newer[0]!, old!, unknown, newer[99]!, newer[119]!]);
    expect(orders.map((o) => o.externalId)).to.deep.equal([newer[0], old, newer[99], newer[119]]);
    // The highest asked id is above every receipt: no jump, the next page ends the shop's receipts.
    expect(lists().map((c) => c.query.get('offset'))).to.deep.equal(['0', '100']);
    expect(singles()).to.deep.equal([unknown]);
  });

  it('reads one receipt with its own call, and leaves it out when the shop does not have it', async () => {
    const [id] = saved(3);
    expect((await fetchReceipts(client, shop.shopId, [id!])).map((o) => o.externalId)).to.deep.equal([id]);
    const unknown = etsy.nextReceiptId();
    expect(await fetchReceipts(client, shop.shopId, [unknown, unknown])).to.deep.equal([]);
    expect(lists()).to.deep.equal([]);
    expect(singles()).to.deep.equal([id, unknown]);
  });
});
