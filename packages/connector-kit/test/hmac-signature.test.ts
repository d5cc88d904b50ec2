import { expect } from 'chai';
import { hmacSignature, verifyHmacSignature } from '../src/index.ts';

// TikTok Shop's webhook vector (PLATFORMS-2.md §3.2, computed): Authorization = hex HMAC-SHA256(app_secret, app_key +
// raw body).
const TIKTOK_BODY =
  '{"type":1,"tts_notification_id":"7327112393057371910","shop_id":"7494049642642441621","timestamp":1767225600,"data":{"is_on_hold_order":false,"order_id":"576461413038785752","order_status":"AWAITING_SHIPMENT","update_time":1767225590}}';
const TIKTOK_SIGNATURE = '54c2ee8cf7293d9025efe8969d37903c7c3f193e6bc6d5e72a6c31cd68927dde';
// TikTok Shop's request signature (§3.1, computed): hex HMAC-SHA256(app_secret, app_secret + path + sorted params +
// body + app_secret).
const TIKTOK_REQUEST_STRING =
  'test_app_secret/order/202309/orders/searchapp_keytest_app_keypage_size50shop_cipherROW_test_ciphersort_fieldupdate_timesort_orderASCtimestamp1767225600{"order_status":"AWAITING_SHIPMENT","update_time_ge":1767139200}test_app_secret';
const TIKTOK_REQUEST_SIGN = '8a93473b37b916584861188842fc93c7f727164b083f355ee0d53c25c803a5b1';
// Standard Webhooks' spec vector (§1.2): base64 HMAC-SHA256 of "id.timestamp.body" keyed with the decoded whsec_
// secret.
const SW_KEY = Buffer.from('MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', 'base64');
const SW_SIGNED = 'msg_p5jXN8AQM9LWM0D4loKWxJek.1614265330.{"test": 2432232314}';
const SW_SIGNATURE = 'g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=';

describe('connector kit: HMAC signatures', () => {
  it('computes the platforms’ published vectors (hex and base64, parts joined without separator)', () => {
    expect(hmacSignature(['test_app_key', Buffer.from(TIKTOK_BODY)], 'test_app_secret', { encoding: 'hex' })).to.equal(
      TIKTOK_SIGNATURE,
    );
    expect(hmacSignature(TIKTOK_REQUEST_STRING, 'test_app_secret', { encoding: 'hex' })).to.equal(TIKTOK_REQUEST_SIGN);
    expect(hmacSignature(SW_SIGNED, SW_KEY, { encoding: 'base64' })).to.equal(SW_SIGNATURE);
    // RFC 2202-style SHA-1 check value for the classic pangram.
    expect(
      hmacSignature('The quick brown fox jumps over the lazy dog', 'key', { encoding: 'hex', algorithm: 'sha1' }),
    ).to.equal('de7c9b85b8b78aa6bc8a7a36f70a90701c9db4d9');
  });

  it('verifies on the raw bytes: hex in either case, base64 and base64url', () => {
    const raw = Buffer.from(TIKTOK_BODY);
    expect(
      verifyHmacSignature(TIKTOK_SIGNATURE, ['test_app_key', raw], 'test_app_secret', { encoding: 'hex' }),
    ).to.equal(true);
    expect(
      verifyHmacSignature(TIKTOK_SIGNATURE.toUpperCase(), ['test_app_key', raw], 'test_app_secret', {
        encoding: 'hex',
      }),
    ).to.equal(true);
    expect(verifyHmacSignature(SW_SIGNATURE, Buffer.from(SW_SIGNED), SW_KEY, { encoding: 'base64' })).to.equal(true);
    expect(
      verifyHmacSignature(Buffer.from(SW_SIGNATURE, 'base64').toString('base64url'), SW_SIGNED, SW_KEY, {
        encoding: 'base64',
      }),
    ).to.equal(true);
    expect(verifyHmacSignature(` ${SW_SIGNATURE}\n`, SW_SIGNED, SW_KEY, { encoding: 'base64' })).to.equal(true);
  });

  it('refuses a body changed by one byte, re-serialised JSON, another key or the wrong algorithm', () => {
    const raw = Buffer.from(TIKTOK_BODY);
    const reserialised = JSON.stringify(JSON.parse(TIKTOK_BODY), null, 1);
    const changed = Buffer.from(TIKTOK_BODY.replace('AWAITING_SHIPMENT', 'AWAITING_SHIPMENS'));
    expect(
      verifyHmacSignature(TIKTOK_SIGNATURE, ['test_app_key', changed], 'test_app_secret', { encoding: 'hex' }),
    ).to.equal(false);
    expect(
      verifyHmacSignature(TIKTOK_SIGNATURE, ['test_app_key', reserialised], 'test_app_secret', { encoding: 'hex' }),
    ).to.equal(false);
    expect(verifyHmacSignature(TIKTOK_SIGNATURE, ['test_app_key', raw], 'other_secret', { encoding: 'hex' })).to.equal(
      false,
    );
    expect(
      verifyHmacSignature(TIKTOK_SIGNATURE, ['test_app_key', raw], 'test_app_secret', {
        encoding: 'hex',
        algorithm: 'sha1',
      }),
    ).to.equal(false);
  });

  it('answers false (never throws) for a missing, empty, truncated or malformed signature', () => {
    const raw = ['test_app_key', TIKTOK_BODY];
    for (const bad of [
      undefined,
      '',
      TIKTOK_SIGNATURE.slice(0, 62),
      `${TIKTOK_SIGNATURE}00`,
      `${TIKTOK_SIGNATURE.slice(0, 63)}z`,
      'not hex at all',
      TIKTOK_SIGNATURE.slice(1),
    ]) {
      expect(verifyHmacSignature(bad, raw, 'test_app_secret', { encoding: 'hex' }), String(bad)).to.equal(false);
    }
    for (const bad of ['', '%%%%', SW_SIGNATURE.slice(0, 20), `${SW_SIGNATURE}AAAA`, 'v1,' + SW_SIGNATURE]) {
      expect(verifyHmacSignature(bad, SW_SIGNED, SW_KEY, { encoding: 'base64' }), bad).to.equal(false);
    }
  });
});
