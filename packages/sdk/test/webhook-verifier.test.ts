import { createHmac } from 'node:crypto';
import { expect } from 'chai';
import { verifyWebhook, WebhookVerificationError } from '../src/index.ts';

const SECRET = 'whsec_dGVzdC1zZWNyZXQtb2YtMzItYnl0ZXMtZm9yLXRlc3Rz';
const NOW = new Date('2025-06-01T12:00:00Z');
const nowSeconds = Math.floor(NOW.getTime() / 1000);
const body = JSON.stringify({
  id: 'evt_1',
  type: 'order.shipped',
  createdAt: NOW.toISOString(),
  testMode: false,
  data: { order: { id: 'ord_1' } },
});

/** Signs exactly as spec §6 says, written out here rather than taken from the service. */
function sign(raw: string, timestamp: number, secret = SECRET): string {
  return `v1=${createHmac('sha256', secret).update(`${timestamp}.${raw}`).digest('hex')}`;
}

function headers(timestamp: number, signature = sign(body, timestamp)): Record<string, string> {
  return {
    'x-service-timestamp': String(timestamp),
    'x-service-signature': signature,
    'x-service-event': 'order.shipped',
  };
}

function refusal(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    expect(err).to.be.instanceOf(WebhookVerificationError);
    return (err as WebhookVerificationError).code;
  }
  throw new Error('expected a WebhookVerificationError');
}

describe('verifyWebhook', () => {
  it('accepts a correctly signed body and returns the event', () => {
    const event = verifyWebhook(body, headers(nowSeconds), SECRET, { now: NOW });
    expect(event).to.include({ id: 'evt_1', type: 'order.shipped', testMode: false });
  });

  it('accepts the body as a Buffer and the headers as a fetch Headers object', () => {
    const event = verifyWebhook(Buffer.from(body), new Headers(headers(nowSeconds)), SECRET, { now: NOW });
    expect(event.id).to.equal('evt_1');
  });

  it('reads headers case-insensitively', () => {
    const h = headers(nowSeconds);
    const event = verifyWebhook(
      body,
      { 'X-Service-Timestamp': h['x-service-timestamp'], 'X-Service-Signature': h['x-service-signature'] },
      SECRET,
      { now: NOW },
    );
    expect(event.id).to.equal('evt_1');
  });

  it('refuses a changed body, a wrong secret and a malformed signature', () => {
    expect(
      refusal(() => verifyWebhook(body.replace('ord_1', 'ord_2'), headers(nowSeconds), SECRET, { now: NOW })),
    ).to.equal('invalid_signature');
    expect(refusal(() => verifyWebhook(body, headers(nowSeconds), `${SECRET}x`, { now: NOW }))).to.equal(
      'invalid_signature',
    );
    expect(refusal(() => verifyWebhook(body, headers(nowSeconds, 'v1=abc'), SECRET, { now: NOW }))).to.equal(
      'invalid_signature',
    );
    expect(
      refusal(() =>
        verifyWebhook(body, headers(nowSeconds, sign(body, nowSeconds).replace('v1=', 'v0=')), SECRET, { now: NOW }),
      ),
    ).to.equal('invalid_signature');
  });

  it('refuses a signature made for another timestamp', () => {
    const h = { ...headers(nowSeconds), 'x-service-signature': sign(body, nowSeconds - 1) };
    expect(refusal(() => verifyWebhook(body, h, SECRET, { now: NOW }))).to.equal('invalid_signature');
  });

  it('refuses stale and future timestamps beyond the tolerance, and accepts them at its edge', () => {
    expect(refusal(() => verifyWebhook(body, headers(nowSeconds - 301), SECRET, { now: NOW }))).to.equal(
      'timestamp_out_of_tolerance',
    );
    expect(refusal(() => verifyWebhook(body, headers(nowSeconds + 301), SECRET, { now: NOW }))).to.equal(
      'timestamp_out_of_tolerance',
    );
    expect(verifyWebhook(body, headers(nowSeconds - 300), SECRET, { now: NOW }).id).to.equal('evt_1');
    expect(verifyWebhook(body, headers(nowSeconds + 300), SECRET, { now: NOW }).id).to.equal('evt_1');
    expect(
      refusal(() => verifyWebhook(body, headers(nowSeconds - 31), SECRET, { now: NOW, toleranceSeconds: 30 })),
    ).to.equal('timestamp_out_of_tolerance');
  });

  it('refuses missing headers and a timestamp that is not Unix seconds', () => {
    expect(
      refusal(() => verifyWebhook(body, { 'x-service-signature': sign(body, nowSeconds) }, SECRET, { now: NOW })),
    ).to.equal('missing_header');
    expect(
      refusal(() => verifyWebhook(body, { 'x-service-timestamp': String(nowSeconds) }, SECRET, { now: NOW })),
    ).to.equal('missing_header');
    expect(
      refusal(() =>
        verifyWebhook(
          body,
          { 'x-service-timestamp': '2025-06-01', 'x-service-signature': sign(body, nowSeconds) },
          SECRET,
          { now: NOW },
        ),
      ),
    ).to.equal('invalid_timestamp');
  });

  it('accepts any one of several v1 signatures (secret rotation)', () => {
    const h = {
      ...headers(nowSeconds),
      'x-service-signature': `${sign(body, nowSeconds, 'whsec_old')}, ${sign(body, nowSeconds)}`,
    };
    expect(verifyWebhook(body, h, SECRET, { now: NOW }).id).to.equal('evt_1');
  });

  it('uses the current time by default', () => {
    const ts = Math.floor(Date.now() / 1000);
    expect(verifyWebhook(body, headers(ts, sign(body, ts)), SECRET).id).to.equal('evt_1');
    expect(refusal(() => verifyWebhook(body, headers(ts - 3600, sign(body, ts - 3600)), SECRET))).to.equal(
      'timestamp_out_of_tolerance',
    );
  });
});
