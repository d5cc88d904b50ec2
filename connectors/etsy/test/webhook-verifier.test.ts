import { expect } from 'chai';
import { signStandardWebhook, type InboundWebhook } from '@print-api/connector-kit';
import { settingsSchema } from '../src/config.ts';
import { identifyShop, parseResourceUrl, webhookContent } from '../src/webhook-content.ts';
import { verifyEtsyWebhook } from '../src/webhook-verifier.ts';
import webhookFixture from './fixtures/webhook-order-paid.json' with { type: 'json' };

const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const settings = (webhookSecret: string | undefined = SECRET) =>
  settingsSchema.parse({ keystring: 'k', sharedSecret: 's', ...(webhookSecret ? { webhookSecret } : {}) });
const inbound = (body: string, headers: Record<string, string> = {}): InboundWebhook => ({
  headers,
  rawBody: Buffer.from(body),
  path: '',
  query: {},
});

// PLATFORMS-2.md §1.2: the Standard Webhooks spec's vector, and an Etsy-shaped one (computed with node:crypto).
const SPEC = {
  id: 'msg_p5jXN8AQM9LWM0D4loKWxJek',
  ts: '1614265330',
  body: '{"test": 2432232314}',
  signature: 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
};
const ETSY = {
  id: 'msg_2xEtsyExample0001',
  ts: '1767225600',
  body: '{"event_type":"order.paid","resource_url":"https://openapi.etsy.com/v3/application/shops/12345/receipts/54321","shop_id":12345}',
  signature: 'v1,Zzgnd8ctcO2EeFZkBdyr6ZIt6nlpUfD0dO4U3+ejP0o=',
};
const headers = (v: typeof SPEC, signature = v.signature) => ({
  'webhook-id': v.id,
  'webhook-timestamp': v.ts,
  'webhook-signature': signature,
});
const at = (ts: string, offsetSeconds = 0) => new Date((Number(ts) + offsetSeconds) * 1000);

describe('Etsy webhooks: Standard Webhooks signatures', () => {
  it("verifies the Standard Webhooks spec's test vector", () => {
    expect(verifyEtsyWebhook(inbound(SPEC.body, headers(SPEC)), settings(), at(SPEC.ts))).to.deep.equal({
      ok: true,
      topic: 'unknown',
      eventId: SPEC.id,
      occurredAt: at(SPEC.ts).toISOString(),
    });
  });

  it('verifies the Etsy-shaped vector: topic order.paid, the message id as event id (a redelivery is stored once)', () => {
    expect(verifyEtsyWebhook(inbound(ETSY.body, headers(ETSY)), settings(), at(ETSY.ts, 60))).to.deep.equal({
      ok: true,
      topic: 'order.paid',
      eventId: ETSY.id,
      occurredAt: '2026-01-01T00:00:00.000Z',
    });
  });

  it('takes a header with several signatures when one matches (a secret rotation), in any position', () => {
    const forged = 'v1,Zzgnd8ctcO2EeFZkBdyr6ZIt6nlpUfD0dO4U3+ejP0A=';
    expect(
      verifyEtsyWebhook(inbound(ETSY.body, headers(ETSY, `${forged} ${ETSY.signature}`)), settings(), at(ETSY.ts)).ok,
    ).to.equal(true);
    expect(
      verifyEtsyWebhook(
        inbound(ETSY.body, headers(ETSY, `${ETSY.signature} v1a,c29tZXRoaW5n`)),
        settings(),
        at(ETSY.ts),
      ).ok,
    ).to.equal(true);
    expect(verifyEtsyWebhook(inbound(ETSY.body, headers(ETSY, forged)), settings(), at(ETSY.ts))).to.deep.equal({
      ok: false,
      reason: 'webhook-signature does not match the body',
    });
  });

  it('verifies with any of several configured secrets (CONNECTOR_ETSY_WEBHOOK_SECRET during a rotation)', () => {
    const two = settings(`whsec_b3RoZXItc2VjcmV0LWZvci1yb3RhdGlvbg== ${SECRET}`);
    expect(two.webhookSecret).to.have.length(2);
    expect(verifyEtsyWebhook(inbound(ETSY.body, headers(ETSY)), two, at(ETSY.ts)).ok).to.equal(true);
  });

  it('refuses a body changed by one byte, a signature without the v1 prefix and a wrong secret', () => {
    expect(
      verifyEtsyWebhook(inbound(ETSY.body.replace('54321', '54322'), headers(ETSY)), settings(), at(ETSY.ts)).ok,
    ).to.equal(false);
    expect(
      verifyEtsyWebhook(inbound(ETSY.body, headers(ETSY, ETSY.signature.slice(3))), settings(), at(ETSY.ts)).ok,
    ).to.equal(false);
    expect(
      verifyEtsyWebhook(
        inbound(ETSY.body, headers(ETSY)),
        settings('whsec_b3RoZXItc2VjcmV0LWZvci1yb3RhdGlvbg=='),
        at(ETSY.ts),
      ).ok,
    ).to.equal(false);
  });

  it('refuses deliveries more than five minutes old or ahead (replays), and takes them within', () => {
    const verdict = (offset: number) =>
      verifyEtsyWebhook(inbound(ETSY.body, headers(ETSY)), settings(), at(ETSY.ts, offset));
    expect(verdict(299).ok).to.equal(true);
    expect(verdict(-299).ok).to.equal(true);
    expect(verdict(301)).to.deep.equal({
      ok: false,
      reason: 'stale delivery: webhook-timestamp 1767225600 is more than 300 s old',
    });
    expect(verdict(-301)).to.deep.equal({ ok: false, reason: 'webhook-timestamp 1767225600 is in the future' });
  });

  it('refuses a delivery without its headers, and every delivery while no webhook secret is set (naming the variable)', () => {
    expect(verifyEtsyWebhook(inbound(ETSY.body), settings(), at(ETSY.ts))).to.deep.equal({
      ok: false,
      reason: 'missing webhook-id, webhook-timestamp or webhook-signature',
    });
    expect(verifyEtsyWebhook(inbound(ETSY.body, headers(ETSY)), settings(''), at(ETSY.ts))).to.deep.equal({
      ok: false,
      reason: 'Etsy webhooks are not accepted: CONNECTOR_ETSY_WEBHOOK_SECRET is not set',
    });
  });

  it('refuses a webhook secret setting that is not whsec_…', () => {
    expect(() => settings('MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw')).to.throw(/whsec_/);
  });
});

describe('Etsy webhooks: the thin payload', () => {
  const body = (p: Record<string, unknown>) => inbound(JSON.stringify(p));

  it('finds the shop by shop_id, an integer or a string, else by resource_url', () => {
    expect(identifyShop(body({ ...webhookFixture, shop_id: 12345 }))).to.equal('12345');
    expect(identifyShop(body({ ...webhookFixture, shop_id: '12345' }))).to.equal('12345');
    expect(identifyShop(body({ event_type: 'order.paid', resource_url: webhookFixture.resource_url }))).to.equal(
      '12345',
    );
    expect(identifyShop(inbound('not json'))).to.equal(undefined);
  });

  it('reads resource_url on either Etsy host, and nothing else', () => {
    expect(parseResourceUrl('https://openapi.etsy.com/v3/application/shops/12345/receipts/54321')).to.deep.equal({
      shopId: '12345',
      receiptId: '54321',
    });
    expect(parseResourceUrl('https://api.etsy.com/v3/application/shops/12345/receipts/54321')).to.deep.equal({
      shopId: '12345',
      receiptId: '54321',
    });
    expect(parseResourceUrl('https://evil.example/v3/application/shops/12345/receipts/54321')).to.equal(null);
    expect(parseResourceUrl('http://openapi.etsy.com/v3/application/shops/12345/receipts/54321')).to.equal(null);
    expect(parseResourceUrl('https://openapi.etsy.com/v3/application/shops/12345/listings/54321')).to.equal(null);
  });

  it('has the receipt fetched for order events, and ignores the rest', () => {
    const paid = {
      event_type: 'order.paid',
      resource_url: 'https://api.etsy.com/v3/application/shops/12345/receipts/54321',
      shop_id: 12345,
    };
    expect(webhookContent(body(paid), '12345')).to.deep.equal({ kind: 'fetch', externalOrderIds: ['54321'] });
    expect(webhookContent(body({ ...paid, event_type: 'order.canceled' }), '12345')).to.deep.equal({
      kind: 'fetch',
      externalOrderIds: ['54321'],
    });
    expect(webhookContent(body({ ...paid, event_type: 'listing.updated' }), '12345')).to.deep.include({
      kind: 'ignored',
    });
    // Etsy's own example names shop 42 in shop_id and 12345 in resource_url: the receipt is looked up in the shop
    // routed to, and the mismatch reported.
    const warnings: unknown[] = [];
    expect(webhookContent(body(webhookFixture), '42', (m, meta) => warnings.push([m, meta]))).to.deep.equal({
      kind: 'fetch',
      externalOrderIds: ['54321'],
    });
    expect(warnings).to.have.length(1);
    expect(
      webhookContent(
        body({ ...paid, resource_url: 'https://evil.example/v3/application/shops/12345/receipts/54321' }),
        '12345',
      ),
    ).to.deep.include({ kind: 'ignored' });
  });

  it("reads the docs page's nested form too: ORDER_PAID in any case, the shop and receipt under data (resource_url or receipt_id)", () => {
    const nested = (data: Record<string, unknown>, event_type = 'ORDER_PAID') =>
      body({ event_type, event_id: 'evt_1', created_at: '2026-01-01T00:00:00Z', data });
    const url = 'https://api.etsy.com/v3/application/shops/12345/receipts/54321';
    expect(identifyShop(nested({ shop_id: 12345, resource_url: url }))).to.equal('12345');
    expect(identifyShop(nested({ shop_id: '12345' }))).to.equal('12345');
    expect(identifyShop(nested({ resource_url: url }))).to.equal('12345');
    expect(webhookContent(nested({ shop_id: 12345, resource_url: url }), '12345')).to.deep.equal({
      kind: 'fetch',
      externalOrderIds: ['54321'],
    });
    expect(webhookContent(nested({ shop_id: 12345, receipt_id: 54321 }), '12345')).to.deep.equal({
      kind: 'fetch',
      externalOrderIds: ['54321'],
    });
    expect(webhookContent(nested({ shop_id: 12345, receipt_id: '9007199254740993' }), '12345')).to.deep.equal({
      kind: 'fetch',
      externalOrderIds: ['9007199254740993'],
    });
    expect(webhookContent(nested({ shop_id: 12345, resource_url: url }, 'Order_Canceled'), '12345')).to.deep.equal({
      kind: 'fetch',
      externalOrderIds: ['54321'],
    });
    expect(
      webhookContent(body({ event_type: 'ORDER_PAID', resource_url: url, shop_id: 12345 }), '12345'),
    ).to.deep.equal({ kind: 'fetch', externalOrderIds: ['54321'] });
    expect(webhookContent(nested({ shop_id: 12345 }), '12345')).to.deep.include({ kind: 'ignored' });
    expect(webhookContent(nested({ shop_id: 12345, resource_url: url }, 'LISTING_UPDATED'), '12345')).to.deep.include({
      kind: 'ignored',
    });
  });

  it('names the topic of a verified nested delivery order.paid', () => {
    const nestedBody = JSON.stringify({
      event_type: 'ORDER_PAID',
      event_id: 'e1',
      created_at: '2026-01-01T00:00:00Z',
      data: { shop_id: 12345 },
    });
    const signed = signStandardWebhook({ id: 'msg_nested', timestamp: 1767225600, body: nestedBody, secret: SECRET });
    expect(verifyEtsyWebhook(inbound(nestedBody, { ...signed }), settings(), new Date(1767225600_000))).to.deep.include(
      { ok: true, topic: 'order.paid' },
    );
  });
});
