import { expect } from 'chai';
import { createHmac, randomUUID, timingSafeEqual } from 'node:crypto';
import { defineConnector } from '@print-api/connector-kit';
import { z } from 'zod';
import { referenceConnector } from '../../../test/reference-connector/src/index.ts';
import { platformSlug } from '../../src/modules/stores/connector-registry.ts';
import type { TestHttpsServer } from '../helpers/https-server.ts';
import { ReferenceShop, refOrder } from '../helpers/reference-shop.ts';
import { cardsReseller } from '../helpers/reference-store.ts';
import { startTestService, type Backend, type TestService } from '../helpers/test-service.ts';
import { waitFor, scaled } from '../helpers/wait.ts';
import { startFileServer } from '../orders/orders-helpers.ts';

const APP_SECRET = 'app-secret-0123456789abcdef';
const { registerWebhooks: _perStore, ...reference } = referenceConnector;

/**
 * The reference platform as an app-level one (as Etsy, Wix and TikTok Shop are): one webhook
 * URL for the whole app, every delivery signed with the app's secret, the shop named in it.
 */
const appSigned = defineConnector({
  ...reference,
  // The app's secret is one of its settings (CONNECTOR_REFERENCE_APP_SECRET), as an app-level platform's is.
  manifest: {
    ...reference.manifest,
    settingsSchema: reference.manifest.settingsSchema!.extend({ appSecret: z.string().min(1) }),
  },
  identifyStore(req) {
    try {
      return (JSON.parse(req.rawBody.toString('utf8')) as { shop_id?: string }).shop_id;
    } catch {
      return undefined;
    }
  },
  verifyWebhook(req, secrets) {
    const { appSecret } = secrets.settings as { appSecret?: string };
    const given = Buffer.from(req.headers['x-app-signature'] ?? '', 'base64');
    const expected = createHmac('sha256', appSecret ?? '')
      .update(req.rawBody)
      .digest();
    if (!appSecret || given.length !== expected.length || !timingSafeEqual(given, expected))
      return { ok: false, reason: 'the app signature does not match the body' };
    return { ok: true, topic: 'order.updated', eventId: req.headers['x-app-delivery'] ?? null, occurredAt: null };
  },
});
const PLATFORM = appSigned.manifest.platform;

for (const backend of ['pglite', 'postgres+redis'] as Backend[]) {
  describe(`app-level inbound webhooks: POST /connectors/<platform>/webhooks [${backend}]`, function () {
    this.timeout(scaled(60_000));
    let t: TestService;
    let files: TestHttpsServer;
    const shops: ReferenceShop[] = [];
    const stores: string[] = [];

    const deliver = async (body: unknown, opts: { secret?: string; deliveryId?: string } = {}) => {
      const raw = JSON.stringify(body);
      const res = await fetch(`${t.baseUrl}/connectors/${platformSlug(PLATFORM)}/webhooks`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'user-agent': 'AppPlatform-Webhooks/1.0',
          'x-app-signature': createHmac('sha256', opts.secret ?? APP_SECRET)
            .update(raw)
            .digest('base64'),
          'x-app-delivery': opts.deliveryId ?? randomUUID(),
        },
        body: raw,
      });
      return { status: res.status, body: (await res.json()) as any };
    };
    const ingests = (storeId: string) =>
      t.service.db.selectFrom('store_ingests').selectAll().where('store_id', '=', storeId).execute();
    const events = () => t.service.db.selectFrom('store_webhook_events').selectAll().execute();
    const externalId = async (storeId: string) =>
      (
        await t.service.db
          .selectFrom('stores')
          .select('external_id')
          .where('id', '=', storeId)
          .executeTakeFirstOrThrow()
      ).external_id;

    before(async function () {
      files = await startFileServer();
      t = await startTestService(
        this,
        backend,
        { CONNECTOR_REFERENCE_APP_SECRET: APP_SECRET },
        { connectors: [appSigned] },
      );
      // Two stores of two resellers: the delivery names which.
      for (let i = 0; i < 2; i++) {
        const shop = await ReferenceShop.start({
          id: `app-shop-${i}-${randomUUID().slice(0, 6)}`,
          name: `App shop ${i}`,
        });
        const r = await cardsReseller(t, files);
        const store = await t.api(r.key, 'POST', '/stores', {
          platform: PLATFORM,
          shopUrl: shop.url,
          token: `tok-${i}`,
        });
        expect(store.status, JSON.stringify(store.body)).to.equal(201);
        shops.push(shop);
        stores.push(store.body.data.id);
      }
    });
    after(async () => {
      await t?.close();
      for (const shop of shops) await shop.close();
      await files?.close();
    });

    it("stores a delivery signed with the app's secret for the store it names, and places its order there", async () => {
      const named = await externalId(stores[1]!);
      const res = await deliver({ shop_id: named, order: refOrder('A-1') }, { deliveryId: 'delivery-a-1' });
      expect(res.status).to.equal(200);
      expect(res.body).to.deep.equal({ received: true, duplicate: false });
      await waitFor('A-1 placed', async () =>
        (await ingests(stores[1]!)).find((i) => i.external_order_id === 'A-1' && i.status === 'placed'),
      );
      expect(await ingests(stores[0]!)).to.deep.equal([]);
      const again = await deliver({ shop_id: named, order: refOrder('A-1') }, { deliveryId: 'delivery-a-1' });
      expect(again.body).to.deep.equal({ received: true, duplicate: true });
    });

    it('refuses a delivery not signed with the app secret (401) and stores nothing', async () => {
      const named = await externalId(stores[0]!);
      const before = (await events()).length;
      const res = await deliver({ shop_id: named, order: refOrder('A-2') }, { secret: 'someone-elses-secret' });
      expect(res.status).to.equal(401);
      expect(res.body.error.code).to.equal('invalid_signature');
      expect(await events()).to.have.length(before);
    });

    it('refuses a delivery larger than 5 MB with 413 payload_too_large (not a 500)', async () => {
      const res = await fetch(`${t.baseUrl}/connectors/${platformSlug(PLATFORM)}/webhooks`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'user-agent': 'AppPlatform-Webhooks/1.0' },
        body: 'x'.repeat(5 * 1024 * 1024 + 1),
      });
      expect(res.status).to.equal(413);
      expect(((await res.json()) as { error: { code: string } }).error.code).to.equal('payload_too_large');
    });

    it('acknowledges a delivery for a store it does not know, and stores nothing', async () => {
      const before = (await events()).length;
      const res = await deliver({ shop_id: 'never-connected', order: refOrder('A-3') });
      expect(res.status).to.equal(200);
      expect(res.body).to.deep.equal({ received: true, ignored: 'unknown store' });
      expect(await events()).to.have.length(before);
    });
  });
}
