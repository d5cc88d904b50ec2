import { expect } from 'chai';
import { createHmac } from 'node:crypto';
import { wooCommerceWebhook } from './webhook-signer.ts';
import { newWebhookSecret } from '../src/webhook-registration.ts';
import { verifyWooWebhook } from '../src/webhook-verifier.ts';
import { inbound, modifiedAt, STORE_URL, wooOrder } from './woo-fixtures.ts';

const SECRET = newWebhookSecret();
const signed = (payload: unknown, opts: { secret?: string; topic?: string; deliveryId?: string } = {}) =>
  wooCommerceWebhook({
    payload,
    secret: opts.secret ?? SECRET,
    topic: opts.topic ?? 'order.updated',
    source: STORE_URL,
    webhookId: 142,
    ...(opts.deliveryId ? { deliveryId: opts.deliveryId } : {}),
  });

/** WordPress's esc_html()/htmlspecialchars(ENT_QUOTES) of a secret. */
const escapeHtml = (s: string) =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#039;');

describe('WooCommerce webhook verifier', () => {
  it('accepts a delivery signed with the store secret: topic, content key, modification time', () => {
    const verdict = verifyWooWebhook(inbound(signed(wooOrder())), SECRET);
    expect(verdict).to.deep.include({ ok: true, topic: 'order.updated', occurredAt: '2025-05-14T09:03:05.000Z' });
    expect(verdict.ok && verdict.eventId).to.match(/^wc:[0-9a-f]{64}$/);
    expect(verdict.ok && verdict.acknowledgeOnly).to.equal(undefined);
  });

  it('refuses a forged signature (another key)', () => {
    expect(verifyWooWebhook(inbound(signed(wooOrder(), { secret: newWebhookSecret() })), SECRET)).to.deep.equal({
      ok: false,
      reason: 'X-WC-Webhook-Signature does not match the body',
    });
  });

  it('refuses a body changed after signing, even by one byte', () => {
    const req = inbound(signed(wooOrder()));
    req.rawBody = Buffer.from(req.rawBody.toString('utf8').replace('"quantity":2', '"quantity":20'));
    expect(verifyWooWebhook(req, SECRET).ok).to.equal(false);
  });

  it('refuses a signature computed over re-serialised JSON instead of the raw bytes', () => {
    const body = JSON.stringify(wooOrder(), null, 2);
    const req = inbound({
      headers: {
        ...signed(wooOrder()).headers,
        'x-wc-webhook-signature': createHmac('sha256', SECRET)
          .update(JSON.stringify(JSON.parse(body)))
          .digest('base64'),
      },
      body,
    });
    expect(verifyWooWebhook(req, SECRET).ok).to.equal(false);
  });

  it('refuses a stale signature: one computed for an earlier copy of the order', () => {
    const earlier = signed(modifiedAt(wooOrder(), '2025-05-14T09:02:41'));
    const later = signed(wooOrder());
    const req = inbound({
      headers: { ...later.headers, 'x-wc-webhook-signature': earlier.headers['x-wc-webhook-signature']! },
      body: later.body,
    });
    expect(verifyWooWebhook(req, SECRET).ok).to.equal(false);
  });

  it('refuses a delivery without a signature, and garbage in the header', () => {
    const { 'x-wc-webhook-signature': _s, ...headers } = signed(wooOrder()).headers;
    expect(verifyWooWebhook(inbound({ headers, body: signed(wooOrder()).body }), SECRET)).to.deep.equal({
      ok: false,
      reason: 'missing X-WC-Webhook-Signature',
    });
    expect(
      verifyWooWebhook(
        inbound({ headers: { ...headers, 'x-wc-webhook-signature': '!!not base64!!' }, body: signed(wooOrder()).body }),
        SECRET,
      ).ok,
    ).to.equal(false);
  });

  it('never verifies with an empty key: a store without a secret accepts nothing, even a delivery signed with ""', () => {
    const emptyKeyed = signed(wooOrder(), { secret: '' });
    expect(verifyWooWebhook(inbound(emptyKeyed), undefined)).to.deep.equal({
      ok: false,
      reason: 'no webhook secret is known for this store',
    });
    expect(verifyWooWebhook(inbound(emptyKeyed), '')).to.deep.equal({
      ok: false,
      reason: 'no webhook secret is known for this store',
    });
  });

  it('acknowledges the unsigned creation ping (webhook_id=N, form-encoded) without storing it', () => {
    const ping = {
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        'user-agent': 'WooCommerce/9.4.2 Hookshot (WordPress/6.7.1)',
      },
      body: 'webhook_id=142',
    };
    expect(verifyWooWebhook(inbound(ping), undefined)).to.deep.equal({
      ok: true,
      topic: 'ping',
      eventId: null,
      occurredAt: null,
      acknowledgeOnly: true,
    });
  });

  it('does not take an unsigned order, or a ping that claims a topic, for a ping', () => {
    expect(verifyWooWebhook(inbound({ headers: {}, body: 'webhook_id=142&order=1' }), SECRET).ok).to.equal(false);
    expect(
      verifyWooWebhook(inbound({ headers: { 'x-wc-webhook-topic': 'order.created' }, body: 'webhook_id=142' }), SECRET)
        .ok,
    ).to.equal(false);
    expect(verifyWooWebhook(inbound({ headers: {}, body: JSON.stringify(wooOrder()) }), SECRET).ok).to.equal(false);
  });

  it('gives the same event key to repeated deliveries of one order copy: order.created twice, order.updated alongside', () => {
    const order = wooOrder();
    const keys = [
      signed(order, { topic: 'order.created' }),
      signed(order, { topic: 'order.created' }),
      signed(order, { topic: 'order.updated' }),
    ].map((d) => {
      const v = verifyWooWebhook(inbound(d), SECRET);
      return v.ok ? v.eventId : null;
    });
    expect(new Set(keys).size).to.equal(1);
  });

  it('gives different keys to different copies even when WooCommerce reuses a delivery id within a second', () => {
    const a = verifyWooWebhook(inbound(signed(wooOrder({ status: 'pending' }), { deliveryId: 'same' })), SECRET);
    const b = verifyWooWebhook(inbound(signed(wooOrder(), { deliveryId: 'same' })), SECRET);
    expect(a.ok && b.ok && a.eventId !== b.eventId).to.equal(true);
  });

  it('generates secrets that WordPress HTML-escaping leaves unchanged, and never empty ones', () => {
    for (let i = 0; i < 50; i++) {
      const secret = newWebhookSecret();
      expect(secret).to.match(/^[0-9a-f]{64}$/);
      expect(escapeHtml(secret)).to.equal(secret);
    }
  });
});
