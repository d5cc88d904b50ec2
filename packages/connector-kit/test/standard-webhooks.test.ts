import { expect } from 'chai';
import { signStandardWebhook, verifyStandardWebhook } from '../src/index.ts';

// PLATFORMS-2.md §1.2: the Standard Webhooks spec vector and an Etsy-shaped one (computed).
const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const SPEC = {
  id: 'msg_p5jXN8AQM9LWM0D4loKWxJek',
  timestamp: '1614265330',
  body: '{"test": 2432232314}',
  signature: 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
};
const ETSY = {
  id: 'msg_2xEtsyExample0001',
  timestamp: '1767225600',
  body: '{"event_type":"order.paid","resource_url":"https://openapi.etsy.com/v3/application/shops/12345/receipts/54321","shop_id":12345}',
  signature: 'v1,Zzgnd8ctcO2EeFZkBdyr6ZIt6nlpUfD0dO4U3+ejP0o=',
};

const headers = (v: { id: string; timestamp: string; signature: string }) => ({
  'webhook-id': v.id,
  'webhook-timestamp': v.timestamp,
  'webhook-signature': v.signature,
  'content-type': 'application/json',
});
const at = (seconds: string, offsetMs = 0) => new Date(Number(seconds) * 1000 + offsetMs);

describe('connector kit: Standard Webhooks', () => {
  it('verifies the spec vector and the Etsy-shaped vector on the raw body', () => {
    for (const v of [SPEC, ETSY]) {
      const verdict = verifyStandardWebhook({
        headers: headers(v),
        rawBody: Buffer.from(v.body),
        secret: SECRET,
        now: at(v.timestamp, 1000),
      });
      expect(verdict, v.id).to.deep.equal({ ok: true, id: v.id, timestamp: at(v.timestamp) });
    }
  });

  it('signs exactly what a sender sends (the vectors again)', () => {
    expect(
      signStandardWebhook({ id: SPEC.id, timestamp: Number(SPEC.timestamp), body: SPEC.body, secret: SECRET }),
    ).to.deep.equal({
      'webhook-id': SPEC.id,
      'webhook-timestamp': SPEC.timestamp,
      'webhook-signature': SPEC.signature,
    });
    expect(
      signStandardWebhook({
        id: ETSY.id,
        timestamp: at(ETSY.timestamp, 999),
        body: Buffer.from(ETSY.body),
        secret: SECRET,
      })['webhook-signature'],
    ).to.equal(ETSY.signature);
  });

  it('accepts any one of several space-separated signatures, skipping other versions', () => {
    const forged = 'v1,Zzgnd8ctcO2EeFZkBdyr6ZIt6nlpUfD0dO4U3+ejP0A=';
    const list = `v1a,bm90IGFuIGVkMjU1MTkgc2lnbmF0dXJl ${forged}  ${ETSY.signature}`;
    expect(
      verifyStandardWebhook({
        headers: headers({ ...ETSY, signature: list }),
        rawBody: ETSY.body,
        secret: SECRET,
        now: at(ETSY.timestamp),
      }).ok,
    ).to.equal(true);
    expect(
      verifyStandardWebhook({
        headers: headers({ ...ETSY, signature: `v1a,${ETSY.signature.slice(3)} ${forged}` }),
        rawBody: ETSY.body,
        secret: SECRET,
        now: at(ETSY.timestamp),
      }),
    ).to.deep.equal({
      ok: false,
      reason: 'webhook-signature does not match the body',
    });
  });

  it('verifies with either secret during a rotation, and with a secret given without whsec_', () => {
    const next = 'whsec_' + Buffer.from('another secret of thirty-two by').toString('base64');
    expect(
      verifyStandardWebhook({
        headers: headers(ETSY),
        rawBody: ETSY.body,
        secret: [next, SECRET],
        now: at(ETSY.timestamp),
      }).ok,
    ).to.equal(true);
    expect(
      verifyStandardWebhook({
        headers: headers(ETSY),
        rawBody: ETSY.body,
        secret: SECRET.slice('whsec_'.length),
        now: at(ETSY.timestamp),
      }).ok,
    ).to.equal(true);
    expect(
      verifyStandardWebhook({ headers: headers(ETSY), rawBody: ETSY.body, secret: next, now: at(ETSY.timestamp) }).ok,
    ).to.equal(false);
  });

  it('refuses a changed body, id or timestamp (each is signed)', () => {
    const now = at(ETSY.timestamp);
    const cases = [
      { headers: headers(ETSY), rawBody: ETSY.body.replace('12345}', '12346}') },
      { headers: headers(ETSY), rawBody: JSON.stringify(JSON.parse(ETSY.body), null, 2) },
      { headers: headers({ ...ETSY, id: 'msg_2xEtsyExample0002' }), rawBody: ETSY.body },
      { headers: headers({ ...ETSY, timestamp: '1767225601' }), rawBody: ETSY.body },
    ];
    for (const c of cases) expect(verifyStandardWebhook({ ...c, secret: SECRET, now }).ok).to.equal(false);
  });

  it('refuses a delivery outside the 5-minute tolerance either way (a replay), and honours another tolerance', () => {
    const input = { headers: headers(ETSY), rawBody: ETSY.body, secret: SECRET };
    expect(verifyStandardWebhook({ ...input, now: at(ETSY.timestamp, 5 * 60_000) }).ok).to.equal(true);
    const stale = verifyStandardWebhook({ ...input, now: at(ETSY.timestamp, 5 * 60_000 + 1000) });
    expect(stale).to.deep.equal({
      ok: false,
      reason: 'stale delivery: webhook-timestamp 1767225600 is more than 300 s old',
    });
    expect(verifyStandardWebhook({ ...input, now: at(ETSY.timestamp, -5 * 60_000 - 1000) })).to.deep.equal({
      ok: false,
      reason: 'webhook-timestamp 1767225600 is in the future',
    });
    expect(
      verifyStandardWebhook({ ...input, now: at(ETSY.timestamp, 10 * 60_000), toleranceMs: 15 * 60_000 }).ok,
    ).to.equal(true);
  });

  it('names what is missing or unreadable', () => {
    const now = at(ETSY.timestamp);
    const { 'webhook-signature': _omitted, ...unsigned } = headers(ETSY);
    expect(verifyStandardWebhook({ headers: unsigned, rawBody: ETSY.body, secret: SECRET, now })).to.deep.equal({
      ok: false,
      reason: 'missing webhook-id, webhook-timestamp or webhook-signature',
    });
    expect(
      verifyStandardWebhook({
        headers: headers({ ...ETSY, timestamp: '2026-01-01T00:00:00Z' }),
        rawBody: ETSY.body,
        secret: SECRET,
        now,
      }).ok,
    ).to.equal(false);
    // "Signature way too short": the v1, prefix left on, or a secret that was not base64-decoded.
    expect(
      verifyStandardWebhook({
        headers: headers({ ...ETSY, signature: ETSY.signature.slice(3) }),
        rawBody: ETSY.body,
        secret: SECRET,
        now,
      }).ok,
    ).to.equal(false);
  });
});
