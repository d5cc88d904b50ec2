import { expect } from 'chai';
import { createHmac } from 'node:crypto';
import type { InboundWebhook } from '@print-api/connector-kit';
import { shopifyWebhook } from './webhook-signer.ts';
import { webhookContent } from '../src/webhook-content.ts';
import { shopifyLibrary } from '../src/shopify-library.ts';
import { verifyShopifyWebhook } from '../src/webhook-verifier.ts';
import appUninstalled from './fixtures/app-uninstalled.json' with { type: 'json' };
import dataRequest from './fixtures/customers-data-request.json' with { type: 'json' };
import customersRedact from './fixtures/customers-redact.json' with { type: 'json' };
import orderFixture from './fixtures/order.json' with { type: 'json' };
import shopRedact from './fixtures/shop-redact.json' with { type: 'json' };

const APP_SECRET = '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';
const CUSTOM_SECRET = 'f00dfeedf00dfeedf00dfeedf00dfeed';
const SHOP = 'tulip-prints.myshopify.com';
const NOW = new Date('2026-11-20T09:20:00Z');
const silent = { info: () => undefined, warn: () => undefined, error: () => undefined };

function inbound(hook: { headers: Record<string, string>; body: string }): InboundWebhook {
  return { headers: { ...hook.headers }, rawBody: Buffer.from(hook.body), path: 'sto_1', query: {} };
}
const signed = (over: Partial<Parameters<typeof shopifyWebhook>[0]> = {}) =>
  inbound(
    shopifyWebhook({
      payload: orderFixture,
      secret: APP_SECRET,
      topic: 'orders/create',
      shop: SHOP,
      eventId: 'evt-1',
      webhookId: 'wh-1',
      triggeredAt: '2026-11-20T09:15:07Z',
      apiVersion: '2026-01',
      ...over,
    }),
  );
const verify = (req: InboundWebhook, secrets: Array<string | undefined> = [undefined, APP_SECRET]) =>
  verifyShopifyWebhook(req, secrets, NOW);

describe('Shopify webhook verifier (HMAC of the raw body, as Shopify documents it)', () => {
  it('accepts a genuine delivery; the event key is topic + event id, the time is X-Shopify-Triggered-At', async () => {
    expect(await verify(signed())).to.deep.equal({
      ok: true,
      topic: 'orders/create',
      eventId: 'orders/create:evt-1',
      occurredAt: '2026-11-20T09:15:07.000Z',
    });
  });

  it('keys on the webhook id when there is no event id, and keeps topics of one event apart', async () => {
    const req = signed();
    delete req.headers['x-shopify-event-id'];
    expect(await verify(req)).to.include({ ok: true, eventId: 'orders/create:wh-1' });
    expect(await verify(signed({ topic: 'orders/paid' }))).to.include({ eventId: 'orders/paid:evt-1' });
  });

  it('refuses a signature made with another secret, a changed body, and a missing signature', async () => {
    expect(await verify(signed({ secret: 'not-the-secret' }))).to.deep.equal({
      ok: false,
      reason: 'X-Shopify-Hmac-Sha256 does not match the body',
    });
    const tampered = signed();
    tampered.rawBody = Buffer.from(
      tampered.rawBody.toString().replace('"financial_status":"paid"', '"financial_status":"pending"'),
    );
    expect((await verify(tampered)).ok).to.equal(false);
    const unsigned = signed();
    delete unsigned.headers['x-shopify-hmac-sha256'];
    expect(await verify(unsigned)).to.deep.equal({ ok: false, reason: 'missing X-Shopify-Hmac-Sha256' });
  });

  it('refuses a delivery missing any of topic, shop domain, API version or webhook id', async () => {
    for (const header of [
      'x-shopify-topic',
      'x-shopify-shop-domain',
      'x-shopify-api-version',
      'x-shopify-webhook-id',
    ]) {
      const req = signed();
      delete req.headers[header];
      const verdict = await verify(req);
      expect(verdict.ok, header).to.equal(false);
      expect(verdict.ok === false && verdict.reason.toLowerCase(), header).to.contain(header);
    }
  });

  it("refuses a replay older than Shopify's retry window, or from the future", async () => {
    expect(await verify(signed({ triggeredAt: '2026-11-20T04:19:00Z' }))).to.deep.include({ ok: false });
    expect(await verify(signed({ triggeredAt: '2026-11-20T05:30:00Z' }))).to.include({ ok: true });
    expect(await verify(signed({ triggeredAt: '2026-11-20T09:40:00Z' }))).to.deep.include({ ok: false });
    expect(await verify(signed({ triggeredAt: 'yesterday' }))).to.deep.include({ ok: false });
  });

  it("verifies a custom app's deliveries with its own API secret key; no secret verifies nothing", async () => {
    const custom = signed({ secret: CUSTOM_SECRET });
    expect((await verify(custom, [CUSTOM_SECRET, APP_SECRET])).ok).to.equal(true);
    expect((await verify(custom, [undefined, APP_SECRET])).ok).to.equal(false);
    expect(await verify(signed(), [undefined, undefined])).to.deep.include({ ok: false });
  });

  it('signs over the exact bytes: a body re-serialised differently no longer matches', async () => {
    const body = JSON.stringify(orderFixture, null, 2);
    const hmac = createHmac('sha256', APP_SECRET).update(body).digest('base64');
    const req = signed();
    req.rawBody = Buffer.from(body);
    req.headers['x-shopify-hmac-sha256'] = hmac;
    expect((await verify(req)).ok).to.equal(true);
    req.rawBody = Buffer.from(JSON.stringify(orderFixture));
    expect((await verify(req)).ok).to.equal(false);
  });
});

describe("Shopify webhook verifier against the library's webhooks.validate", () => {
  it('accepts and refuses exactly the deliveries the library does', async () => {
    const library = shopifyLibrary({
      apiKey: 'webhook-verification',
      secret: APP_SECRET,
      publicUrl: 'https://webhooks.invalid',
    });
    const cases: Array<[string, InboundWebhook]> = [
      ['genuine', signed()],
      ['another secret', signed({ secret: 'not-the-secret' })],
      ['another topic', signed({ topic: 'orders/paid' })],
    ];
    const tampered = signed();
    tampered.rawBody = Buffer.concat([tampered.rawBody, Buffer.from(' ')]);
    cases.push(['tampered body', tampered]);
    for (const header of [
      'x-shopify-hmac-sha256',
      'x-shopify-topic',
      'x-shopify-shop-domain',
      'x-shopify-api-version',
      'x-shopify-webhook-id',
      'x-shopify-event-id',
    ]) {
      const req = signed();
      delete req.headers[header];
      cases.push([`without ${header}`, req]);
    }
    const garbled = signed();
    garbled.headers['x-shopify-hmac-sha256'] = 'not base64 at all!';
    cases.push(['garbled signature', garbled]);
    for (const [name, req] of cases) {
      const theirs = await library.webhooks.validate({
        rawBody: req.rawBody.toString('utf8'),
        rawRequest: { method: 'POST', url: '/', headers: { ...req.headers } },
      });
      expect((await verify(req, [APP_SECRET])).ok, name).to.equal(theirs.valid);
    }
  });
});

describe('Shopify webhook content', () => {
  const content = (topic: string, payload: unknown, shop = SHOP) =>
    webhookContent(inbound(shopifyWebhook({ payload, secret: APP_SECRET, topic, shop })), SHOP, silent);

  it('turns the four order topics into the order', () => {
    for (const topic of ['orders/create', 'orders/paid', 'orders/updated', 'orders/cancelled']) {
      const c = content(topic, orderFixture);
      expect(c.kind, topic).to.equal('orders');
      expect(c.kind === 'orders' && c.orders[0]!.externalId).to.equal('6512345678901');
    }
  });

  it('disconnects on app/uninstalled and erases on the compliance topics', () => {
    expect(content('app/uninstalled', appUninstalled)).to.deep.equal({ kind: 'uninstalled' });
    expect(content('shop/redact', shopRedact)).to.deep.equal({ kind: 'redact', externalOrderIds: 'all' });
    expect(content('customers/redact', customersRedact)).to.deep.equal({
      kind: 'redact',
      externalOrderIds: ['6512345678901', '6512345678902'],
    });
    expect(content('customers/data_request', dataRequest).kind).to.equal('ignored');
  });

  it('ignores a delivery naming another shop than the store it reached, and topics we do not act on', () => {
    expect(content('orders/create', orderFixture, 'someone-else.myshopify.com').kind).to.equal('ignored');
    expect(content('inventory_levels/update', { id: 1 }).kind).to.equal('ignored');
  });
});
