import { createHmac } from 'node:crypto';
import { expect } from 'chai';
import {
  isSubscribed,
  normaliseSubscription,
  SUBSCRIBABLE_EVENTS,
} from '../../src/modules/webhooks/webhook-event-types.ts';
import { DEFAULT_RETRY_SCHEDULE_MS, nextRetryDelay } from '../../src/modules/webhooks/webhook-retry-schedule.ts';
import { newWebhookSecret, signedHeaders } from '../../src/modules/webhooks/webhook-signer.ts';
import { resolveWebhooksOptions } from '../../src/modules/webhooks/webhooks-options.ts';

describe('webhook rules', () => {
  describe('retry schedule', () => {
    it('retries at 10 s, 1 min, 5 min, 30 min, 2 h, 5 h, 10 h, then once more at 24 h', () => {
      const minutes = DEFAULT_RETRY_SCHEDULE_MS.map((ms) => ms / 60_000);
      expect(minutes.slice(0, 7)).to.deep.equal([1 / 6, 1, 5, 30, 120, 300, 600]);
      const total = DEFAULT_RETRY_SCHEDULE_MS.reduce((a, b) => a + b, 0);
      expect(total).to.equal(24 * 3600 * 1000);
      for (let i = 1; i < 7; i++)
        expect(DEFAULT_RETRY_SCHEDULE_MS[i]!).to.be.greaterThan(DEFAULT_RETRY_SCHEDULE_MS[i - 1]!);
    });

    it('gives up after the last entry', () => {
      expect(nextRetryDelay(DEFAULT_RETRY_SCHEDULE_MS, 8, 0)).to.be.a('number');
      expect(nextRetryDelay(DEFAULT_RETRY_SCHEDULE_MS, 9, 0)).to.equal(null);
      expect(nextRetryDelay([], 1, 0)).to.equal(null);
    });

    it('jitters each wait within ± the ratio', () => {
      expect(nextRetryDelay([1000], 1, 0.1, () => 0)).to.equal(900);
      expect(nextRetryDelay([1000], 1, 0.1, () => 1)).to.equal(1100);
      expect(nextRetryDelay([1000], 1, 0.1, () => 0.5)).to.equal(1000);
      for (let i = 0; i < 200; i++) expect(nextRetryDelay([60_000], 1, 0.1)).to.be.within(54_000, 66_000);
    });

    it('defaults to the contract: 10 s timeout, a lease longer than it, 5 days before disabling, 20 endpoints', () => {
      const o = resolveWebhooksOptions();
      expect(o).to.include({ timeoutMs: 10_000, disableAfterMs: 5 * 24 * 3600 * 1000, maxEndpoints: 20 });
      expect(o.leaseMs).to.be.greaterThan(o.timeoutMs);
      expect(resolveWebhooksOptions({ timeoutMs: 500 }).leaseMs).to.be.greaterThan(500);
    });
  });

  describe('subscriptions', () => {
    it("knows every event kind of spec §6, the stores' store.order_skipped and *", () => {
      expect(SUBSCRIBABLE_EVENTS).to.have.members([
        'order.created',
        'order.submitted',
        'order.awaiting_funds',
        'order.payment_failed',
        'order.in_production',
        'order.shipped',
        'order.delivered',
        'order.cancelled',
        'order.file_problem',
        'store.order_skipped',
        '*',
      ]);
    });

    it('normalises duplicates and * and reports unknown names', () => {
      expect(normaliseSubscription(['order.created', 'order.created'])).to.deep.equal({ events: ['order.created'] });
      expect(normaliseSubscription(['order.created', '*'])).to.deep.equal({ events: ['*'] });
      const bad = normaliseSubscription(['order.created', 'order.lost']);
      expect('problems' in bad && bad.problems.map((p) => p.field)).to.deep.equal(['events[1]']);
    });

    it('matches * to every order event but never to ping', () => {
      expect(isSubscribed(['*'], 'order.shipped')).to.equal(true);
      expect(isSubscribed(['order.created'], 'order.shipped')).to.equal(false);
      expect(isSubscribed(['*'], 'ping')).to.equal(false);
    });
  });

  describe('signing', () => {
    it('makes whsec_ secrets of 32 random bytes', () => {
      const a = newWebhookSecret();
      expect(a).to.match(/^whsec_[A-Za-z0-9_-]{43}$/);
      expect(newWebhookSecret()).to.not.equal(a);
    });

    it('signs "<timestamp>.<body>" with HMAC-SHA256, lowercase hex, and sends the timestamp in Unix seconds', () => {
      const body = '{"id":"evt_1"}';
      const at = new Date('2025-01-02T03:04:05.678Z');
      const h = signedHeaders(
        'whsec_k',
        { eventId: 'evt_1', eventType: 'order.created', deliveryId: 'whd_1', attempt: 2, body },
        'ua/1',
        at,
      );
      expect(h['x-service-timestamp']).to.equal('1735787045');
      expect(h['x-service-signature']).to.equal(
        `v1=${createHmac('sha256', 'whsec_k').update(`1735787045.${body}`).digest('hex')}`,
      );
      expect(h).to.include({
        'x-service-event': 'order.created',
        'x-service-delivery': 'whd_1',
        'x-service-attempt': '2',
        'content-type': 'application/json',
        'user-agent': 'ua/1',
      });
    });
  });
});
