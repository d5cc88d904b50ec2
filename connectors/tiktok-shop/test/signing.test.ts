import { expect } from 'chai';
import type { InboundWebhook } from '@print-api/connector-kit';
import { tiktokShopWebhook } from './webhook-signer.ts';
import { signRequest, stringToSign, webhookSignature } from '../src/signing.ts';
import { webhookContent } from '../src/webhook-content.ts';
import { verifyTikTokWebhook } from '../src/webhook-verifier.ts';
import deauthorization from './fixtures/webhook-seller-deauthorization.json' with { type: 'json' };
import expiring from './fixtures/webhook-upcoming-authorization-expiration.json' with { type: 'json' };

// The worked examples of PLATFORMS-2.md section 3 (computed with node:crypto from the documented algorithm).
const VECTOR = {
  appKey: 'test_app_key',
  appSecret: 'test_app_secret',
  path: '/order/202309/orders/search',
  query: {
    page_size: '50',
    shop_cipher: 'ROW_test_cipher',
    sort_field: 'update_time',
    sort_order: 'ASC',
    timestamp: '1767225600',
    app_key: 'test_app_key',
  },
  body: '{"order_status":"AWAITING_SHIPMENT","update_time_ge":1767139200}',
};
const WEBHOOK_BODY =
  '{"type":1,"tts_notification_id":"7327112393057371910","shop_id":"7494049642642441621","timestamp":1767225600,"data":{"is_on_hold_order":false,"order_id":"576461413038785752","order_status":"AWAITING_SHIPMENT","update_time":1767225590}}';

const inbound = (body: string, headers: Record<string, string>): InboundWebhook => ({
  headers,
  rawBody: Buffer.from(body),
  path: '',
  query: {},
});
const settings = { appKey: VECTOR.appKey, appSecret: VECTOR.appSecret };
const at = (unixSeconds: number) => new Date(unixSeconds * 1000);

describe('TikTok Shop signatures (PLATFORMS-2.md test vectors)', () => {
  it('signs an API call: secret + path + sorted query pairs + exact body + secret, hex HMAC-SHA256', () => {
    expect(
      stringToSign({ appSecret: VECTOR.appSecret, path: VECTOR.path, query: VECTOR.query, body: VECTOR.body }),
    ).to.equal(
      'test_app_secret/order/202309/orders/searchapp_keytest_app_keypage_size50shop_cipherROW_test_ciphersort_fieldupdate_timesort_orderASCtimestamp1767225600{"order_status":"AWAITING_SHIPMENT","update_time_ge":1767139200}test_app_secret',
    );
    expect(
      signRequest({ appSecret: VECTOR.appSecret, path: VECTOR.path, query: VECTOR.query, body: VECTOR.body }),
    ).to.equal('8a93473b37b916584861188842fc93c7f727164b083f355ee0d53c25c803a5b1');
  });

  it('leaves sign and access_token out of the signed pairs, and signs no body for GETs or multipart', () => {
    const base = signRequest({ appSecret: 's', path: '/p', query: { a: '1' } });
    expect(signRequest({ appSecret: 's', path: '/p', query: { a: '1', sign: 'x', access_token: 'y' } })).to.equal(base);
    expect(signRequest({ appSecret: 's', path: '/p', query: { a: '1' }, body: '{"x":1}', multipart: true })).to.equal(
      base,
    );
    expect(signRequest({ appSecret: 's', path: '/p', query: { a: '1' }, body: '{"x":1}' })).not.to.equal(base);
    // The exact bytes: a re-serialised body (another key order, spaces) is another signature.
    expect(signRequest({ appSecret: 's', path: '/p', query: {}, body: '{"a":1,"b":2}' })).not.to.equal(
      signRequest({ appSecret: 's', path: '/p', query: {}, body: '{"b":2,"a":1}' }),
    );
  });

  it("signs a webhook as Authorization = hex HMAC-SHA256(app secret, app key + raw body), like the kit's test helper", () => {
    expect(webhookSignature(VECTOR.appKey, VECTOR.appSecret, WEBHOOK_BODY)).to.equal(
      '54c2ee8cf7293d9025efe8969d37903c7c3f193e6bc6d5e72a6c31cd68927dde',
    );
    expect(
      tiktokShopWebhook({ payload: WEBHOOK_BODY, appKey: VECTOR.appKey, appSecret: VECTOR.appSecret }).headers
        .authorization,
    ).to.equal('54c2ee8cf7293d9025efe8969d37903c7c3f193e6bc6d5e72a6c31cd68927dde');
  });

  it('verifies a delivery on its raw bytes and keys it by tts_notification_id', () => {
    const verdict = verifyTikTokWebhook(
      inbound(WEBHOOK_BODY, { authorization: '54c2ee8cf7293d9025efe8969d37903c7c3f193e6bc6d5e72a6c31cd68927dde' }),
      settings,
      at(1767225660),
    );
    expect(verdict).to.deep.equal({
      ok: true,
      topic: 'ORDER_STATUS_CHANGE',
      eventId: '7327112393057371910',
      occurredAt: '2026-01-01T00:00:00.000Z',
    });
  });

  it('refuses a missing or wrong signature, a body changed by one byte, a stale replay and a timestamp from the future', () => {
    const sig = '54c2ee8cf7293d9025efe8969d37903c7c3f193e6bc6d5e72a6c31cd68927dde';
    const refused = (body: string, headers: Record<string, string>, now: Date) => {
      const v = verifyTikTokWebhook(inbound(body, headers), settings, now);
      expect(v.ok).to.equal(false);
      return (v as { reason: string }).reason;
    };
    expect(refused(WEBHOOK_BODY, {}, at(1767225660))).to.match(/missing Authorization/);
    expect(refused(WEBHOOK_BODY, { authorization: `Bearer ${sig}` }, at(1767225660))).to.match(/does not match/);
    expect(
      refused(WEBHOOK_BODY.replace('AWAITING_SHIPMENT', 'AWAITING_SHIPMENt'), { authorization: sig }, at(1767225660)),
    ).to.match(/does not match/);
    expect(
      refused(
        WEBHOOK_BODY,
        { authorization: webhookSignature(VECTOR.appKey, 'another secret', WEBHOOK_BODY) },
        at(1767225660),
      ),
    ).to.match(/does not match/);
    expect(refused(WEBHOOK_BODY, { authorization: sig }, at(1767225600 + 25 * 3600))).to.match(/stale delivery/);
    expect(refused(WEBHOOK_BODY, { authorization: sig }, at(1767225600 - 600))).to.match(/in the future/);
  });

  it('reads what a delivery means: an order to fetch, a deauthorisation, an expiry warning, the rest ignored', () => {
    expect(webhookContent(inbound(WEBHOOK_BODY, {}))).to.deep.equal({
      kind: 'fetch',
      externalOrderIds: ['576461413038785752'],
    });
    const gone = webhookContent(inbound(JSON.stringify(deauthorization), {}));
    expect(gone.kind).to.equal('uninstalled');
    expect((gone as { reason: string }).reason).to.match(/deauthorised the app on TikTok Shop/);
    const warning = webhookContent(inbound(JSON.stringify(expiring), {}));
    expect(warning).to.deep.equal({
      kind: 'store_warning',
      message:
        'The TikTok Shop authorisation of this store expires on 2026-01-31: the seller must authorise the app again (a new install link), or orders stop.',
    });
    expect(webhookContent(inbound('{"type":4,"shop_id":"1","timestamp":1767225600,"data":{}}', {})).kind).to.equal(
      'ignored',
    );
  });

  it('keeps a 64-bit order id a notification sends as a bare number', () => {
    const body =
      '{"type":1,"shop_id":7494049642642441621,"timestamp":1767225600,"data":{"order_id":576461413038785752}}';
    expect(webhookContent(inbound(body, {}))).to.deep.equal({
      kind: 'fetch',
      externalOrderIds: ['576461413038785752'],
    });
  });
});
