import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { decimalToMinorUnits, minorUnitsToDecimal } from '@print-api/connector-kit';
import type { ConformanceService, FakeStore } from '@print-api/connector-kit/testing';
import type { FakeWix, FakeWixSite } from './fake-wix.ts';
import { ORDER_WEBHOOKS as EVENTS, wixOrderOf } from './fake-wix-orders.ts';

/** The kit's conformance suite's view of a Wix site our app is installed on: its orders, deliveries and products. */
export function wixStore(fake: FakeWix, service: ConformanceService, site: FakeWixSite, storeId: string): FakeStore {
  const rateLimits: number[] = [];
  const pushTries: number[] = [];
  site.faults.length = 0;
  const pending = { rateLimits, pushTries };
  (site as FakeWixSite & { pending?: typeof pending }).pending = pending;
  return {
    storeId,
    nextOrderId: () => randomUUID(),
    saveOrder(spec) {
      const id = spec.id ?? randomUUID();
      site.orders.set(id, wixOrderOf({ ...spec, id }));
      return id;
    },
    deliver(spec, event, opts = {}) {
      const order = wixOrderOf(spec);
      const type = EVENTS[event];
      if (opts.tamper === 'forged') {
        const other = generateKeyPairSync('rsa', {
          modulusLength: 2048,
          privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
          publicKeyEncoding: { type: 'spki', format: 'pem' },
        });
        return fake.post(
          service,
          fake.webhookBody(site, type, fake.orderEvent(order, type), { privateKey: other.privateKey }),
        );
      }
      if (opts.tamper === 'stale') {
        // Captured three days ago: past Wix's two days of resends.
        const then = Date.now() - 3 * 24 * 3600_000;
        return fake.post(
          service,
          fake.webhookBody(site, type, fake.orderEvent(order, type, { eventTime: new Date(then).toISOString() }), {
            issuedAt: Math.floor(then / 1000),
          }),
        );
      }
      return fake.post(
        service,
        fake.webhookBody(site, type, fake.orderEvent(order, type, opts.deliveryId ? { eventId: opts.deliveryId } : {})),
      );
    },
    product(externalProductId) {
      const p = site.products.find((x) => x.id === externalProductId);
      if (p) return { sku: p.sku || null, title: p.name, price: wixPrice(p.priceData), active: p.visible };
      const v3 = site.productsV3.find((x) => x.id === externalProductId);
      const only = v3?.variantsInfo.variants[0];
      return (
        v3 &&
        only && {
          sku: only.sku ?? null,
          title: v3.name,
          price: wixPrice({ currency: site.currency, price: Number(only.price.actualPrice.amount) }),
          active: v3.visible && only.visible,
        }
      );
    },
    pushedTracking: (orderId) =>
      (site.fulfillments.get(orderId) ?? []).map((f) => ({
        trackingNumber: String(f.trackingInfo.trackingNumber),
        ...(f.trackingInfo.trackingLink ? { trackingUrl: String(f.trackingInfo.trackingLink) } : {}),
      })),
    rateLimitNextPush(retryAfterSeconds) {
      site.faultNext('createFulfillment', [
        429,
        {
          message: 'Too many requests',
          details: { applicationError: { code: 'RESOURCE_EXHAUSTED', description: 'rate limit', data: {} } },
        },
        { 'Retry-After': String(retryAfterSeconds) },
      ]);
      return () => site.seen('createFulfillment').map((c) => c.at);
    },
    expireTokens: () => fake.expireTokens(),
    tokenRefreshes: () => fake.tokenGrants(site.instanceId),
    async uninstall() {
      site.installed = false;
      return fake.post(service, fake.webhookBody(site, 'AppRemoved', { appId: fake.app.appId }));
    },
  };
}

/**
 * A V1 product's price (a JSON number in the site's currency) as the decimal string the scenarios compare (24.95 ->
 * "24.95", 25 -> "25.00").
 */
function wixPrice(priceData: { currency: string; price: number } | undefined): string {
  const minor = priceData && decimalToMinorUnits(priceData.price, priceData.currency);
  return priceData && minor !== null && minor !== undefined ? minorUnitsToDecimal(minor, priceData.currency) : '';
}
