import assert from 'node:assert/strict';
import { generateKeyPairSync, createHmac } from 'node:crypto';
import { signRs256Jwt, type InboundWebhook } from '@print-api/connector-kit';
import { settingsSchema } from '../src/config.ts';
import { wixConnector } from '../src/index.ts';
import { webhookContent } from '../src/webhook-content.ts';
import { peekEnvelope, verifyWixWebhook } from '../src/webhook-verifier.ts';
import approvedPayload from './fixtures/order-approved-jwt-payload.json' with { type: 'json' };
import orderFixture from './fixtures/order.json' with { type: 'json' };

const pair = () =>
  generateKeyPairSync('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });
const keys = pair();
const APP_ID = '0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d';
const settings = settingsSchema.parse({ appId: APP_ID, appSecret: 'secret', publicKey: keys.publicKey });
const INSTANCE = '6f2b5e2a-0000-4000-8000-0000000000aa';
// The documented example's event time, and a clock an hour later.
const NOW = new Date('2026-01-01T11:00:00.000Z');
const iat = Math.floor(Date.parse('2026-01-01T10:00:06Z') / 1000);

const req = (body: string): InboundWebhook => ({
  headers: { 'content-type': 'text/plain' },
  rawBody: Buffer.from(body),
  path: '',
  query: {},
});
const sign = (payload: Record<string, unknown>, key = keys.privateKey, header: Record<string, unknown> = {}) =>
  signRs256Jwt(payload, key, header);
const envelope = (eventType: string, event: unknown, instanceId = INSTANCE) =>
  JSON.stringify({
    data: JSON.stringify(event),
    instanceId,
    eventType,
    identity: JSON.stringify({ identityType: 'APP' }),
  });

describe('Wix webhooks: the RS256 JWT body and its three nested JSON strings', () => {
  it("verifies the documented order_approved payload signed with the app's key and keys it by its event id", async () => {
    const verdict = await verifyWixWebhook(req(sign({ ...approvedPayload, iat })), settings, NOW);
    assert.deepEqual(verdict, {
      ok: true,
      topic: 'wix.ecom.v1.order_approved',
      eventId: 'wix.ecom.v1.order_approved:f5a1c9e2-0000-4000-8000-00000000abcd',
      occurredAt: '2026-01-01T10:00:05.123Z',
    });
    assert.equal(peekEnvelope(Buffer.from(sign(approvedPayload)))?.instanceId, INSTANCE);
  });

  it('refuses another key, another algorithm, a tampered payload and a body that is not a JWT', async () => {
    assert.match(
      String(
        ((await verifyWixWebhook(req(sign(approvedPayload, pair().privateKey)), settings, NOW)) as { reason: string })
          .reason,
      ),
      /signature does not verify/,
    );
    const hs = (() => {
      const part = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
      const signed = `${part({ alg: 'HS256', typ: 'JWT' })}.${part(approvedPayload)}`;
      return `${signed}.${createHmac('sha256', keys.publicKey).update(signed).digest('base64url')}`;
    })();
    assert.match(String(((await verifyWixWebhook(req(hs), settings, NOW)) as { reason: string }).reason), /HS256/);
    const [h, , s] = sign(approvedPayload).split('.');
    const other = Buffer.from(JSON.stringify({ data: envelope('wix.ecom.v1.order_canceled', { id: 'x' }) })).toString(
      'base64url',
    );
    assert.equal((await verifyWixWebhook(req(`${h}.${other}.${s}`), settings, NOW)).ok, false);
    assert.equal((await verifyWixWebhook(req('{"data":"{}"}'), settings, NOW)).ok, false);
  });

  it('checks issuer and audience where the JWT has them', async () => {
    assert.equal(
      (await verifyWixWebhook(req(sign({ ...approvedPayload, iss: 'wix.com', aud: APP_ID })), settings, NOW)).ok,
      true,
    );
    assert.match(
      String(
        (
          (await verifyWixWebhook(req(sign({ ...approvedPayload, iss: 'evil.example' })), settings, NOW)) as {
            reason: string;
          }
        ).reason,
      ),
      /issuer/,
    );
    assert.match(
      String(
        (
          (await verifyWixWebhook(req(sign({ ...approvedPayload, aud: 'another-app' })), settings, NOW)) as {
            reason: string;
          }
        ).reason,
      ),
      /not our app/,
    );
  });

  it('refuses an expired JWT and an event older than the two days Wix resends for (a replay)', async () => {
    assert.match(
      String(
        (
          (await verifyWixWebhook(req(sign({ ...approvedPayload, iat, exp: iat + 60 })), settings, NOW)) as {
            reason: string;
          }
        ).reason,
      ),
      /expired/,
    );
    const threeDaysLater = new Date(NOW.getTime() + 3 * 24 * 3600_000);
    assert.match(
      String(
        ((await verifyWixWebhook(req(sign(approvedPayload)), settings, threeDaysLater)) as { reason: string }).reason,
      ),
      /stale delivery/,
    );
    // A resend 46 hours after the event is still taken.
    assert.equal(
      (await verifyWixWebhook(req(sign(approvedPayload)), settings, new Date(NOW.getTime() + 46 * 3600_000))).ok,
      true,
    );
  });

  it('refuses a JWT whose data claim is not the nested JSON text', async () => {
    assert.match(
      String(
        ((await verifyWixWebhook(req(sign({ data: { eventType: 'x' } })), settings, NOW)) as { reason: string }).reason,
      ),
      /data claim/,
    );
    assert.match(
      String(
        (
          (await verifyWixWebhook(
            req(sign({ data: JSON.stringify({ eventType: 'wix.ecom.v1.order_approved' }) })),
            settings,
            NOW,
          )) as { reason: string }
        ).reason,
      ),
      /instanceId/,
    );
  });

  it('turns a thin order event into a fetch of the order, a whole one into the order itself', () => {
    assert.deepEqual(webhookContent(req(sign(approvedPayload)), INSTANCE), {
      kind: 'fetch',
      externalOrderIds: ['a1b2c3d4-1111-4222-8333-444455556666'],
    });
    const whole = envelope('wix.ecom.v1.order_payment_status_updated', {
      id: 'e-1',
      entityId: orderFixture.id,
      eventTime: orderFixture.updatedDate,
      actionEvent: { body: { order: orderFixture, previousPaymentStatus: 'NOT_PAID' } },
    });
    const content = webhookContent(req(sign({ data: whole })), INSTANCE);
    assert.equal(content.kind, 'orders');
    assert.equal(content.kind === 'orders' && content.orders[0]!.paid, true);
  });

  it('disconnects on App Instance Removed, resyncs listings on product events, ignores other events and other instances', async () => {
    assert.deepEqual(webhookContent(req(sign({ data: envelope('AppRemoved', { appId: APP_ID }) })), INSTANCE), {
      kind: 'uninstalled',
    });
    const removed = await verifyWixWebhook(
      req(sign({ data: envelope('AppRemoved', { appId: APP_ID }) })),
      settings,
      NOW,
    );
    assert.deepEqual(removed, { ok: true, topic: 'AppRemoved', eventId: `AppRemoved:${INSTANCE}`, occurredAt: null });
    assert.deepEqual(
      webhookContent(req(sign({ data: envelope('wix.stores.catalog.v3.product_updated', { id: 'p' }) })), INSTANCE),
      { kind: 'listings_changed' },
    );
    assert.equal(
      webhookContent(req(sign({ data: envelope('wix.ecom.v1.order_fulfilled', { id: 'f' }) })), INSTANCE).kind,
      'ignored',
    );
    assert.equal(webhookContent(req(sign(approvedPayload)), '11111111-2222-4333-8444-555555555555').kind, 'ignored');
  });

  it("budgets 200 calls a minute per site (Wix's limit per app instance)", () => {
    assert.deepEqual(wixConnector.manifest.rateLimit, { max: 200, durationMs: 60_000 });
  });
});
