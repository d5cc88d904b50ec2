import { expect } from 'chai';
import {
  ConnectorError,
  hmacSignature,
  type ConnectorContext,
  type HttpClient,
  type StoreConnection,
} from '@print-api/connector-kit';
import { startTestService, type TestService, scaled } from '@print-api/core/testing';
import { SANDBOX_API_URL, type SandboxCredentials, type SandboxSettings } from '../src/config.ts';
import { sandboxConnector } from '../src/index.ts';
import { verifySandboxWebhook } from '../src/webhook-verifier.ts';

const unreachable: HttpClient = {
  request: async (req) => Promise.reject(new Error(`no network in this test: ${req.url}`)),
  download: async (req) => Promise.reject(new Error(`no network in this test: ${req.url}`)),
};

describe('sandbox webhook verifier', () => {
  const secret = 'whsec_0123456789abcdef0123';
  const body = Buffer.from('{"order":{"id":"1001"}}');
  const now = new Date('2026-11-25T10:00:00Z');
  const signed = (ts: number, key = secret) => ({
    headers: {
      'x-sandbox-timestamp': String(ts),
      'x-sandbox-signature': hmacSignature([`${ts}.`, body], key, { encoding: 'hex' }),
      'x-sandbox-topic': 'orders/create',
      'x-sandbox-event-id': 'e-1',
    },
    rawBody: body,
    path: 'sto_1',
    query: {},
  });
  const ts = now.getTime() / 1000;

  it('takes a delivery signed with the store secret, with its topic and event id', () => {
    expect(verifySandboxWebhook(signed(ts), secret, now)).to.deep.include({
      ok: true,
      topic: 'orders/create',
      eventId: 'e-1',
    });
  });
  it('refuses a forged, an unsigned, a stale delivery and one for a store without a secret', () => {
    expect(verifySandboxWebhook(signed(ts, 'whsec_another_secret_000'), secret, now)).to.deep.include({ ok: false });
    expect(verifySandboxWebhook({ ...signed(ts), headers: {} }, secret, now)).to.deep.include({ ok: false });
    expect(verifySandboxWebhook(signed(ts - 301), secret, now)).to.deep.equal({
      ok: false,
      reason: 'X-Sandbox-Timestamp is more than 5 minutes off: a replay',
    });
    expect(verifySandboxWebhook(signed(ts), undefined, now)).to.deep.include({ ok: false });
  });
});

/** The connector against core's sandbox platform, answered in-process by the service's client (no network). */
describe('sandbox connector: publishing and its platform API', function () {
  this.timeout(scaled(60_000));
  let t: TestService;
  let ctx: ConnectorContext<SandboxSettings>;
  let store: StoreConnection<SandboxCredentials>;

  before(async function () {
    t = await startTestService(this, 'pglite', {}, { connectors: [sandboxConnector] });
    ctx = {
      http: t.service.services.sandbox.http(unreachable),
      logger: { info() {}, warn() {}, error() {} },
      clock: () => new Date(),
      publicUrl: 'https://print-api.example.com',
      settings: { apiUrl: SANDBOX_API_URL },
      webhookUrl: (id) => `https://print-api.example.com/connectors/sandbox/webhooks/${id ?? ''}`,
    };
    store = await sandboxConnector.connect(ctx, { name: 'Publishing shop' });
  });
  after(async () => t?.close());

  it('opens a shop on connect, named as asked', () => {
    expect(store.externalId).to.match(/^sbs_/);
    expect(store.name).to.equal('Publishing shop');
  });

  it('publishes, changes and archives a listing, which listListings shows while it is not archived', async () => {
    const published = await sandboxConnector.publishListing!(ctx, store, {
      sku: 'POSTER-TULIPS',
      title: 'Tulip poster',
      priceCents: 2495,
      currency: 'EUR',
      imageUrls: [],
      published: false,
    });
    expect(published).to.include({ externalVariantId: null, status: 'draft' });
    const ref = { externalProductId: published.externalProductId, externalVariantId: null };
    expect(
      (await sandboxConnector.updateListing!(ctx, store, ref, { published: true, priceCents: 2995 })).status,
    ).to.equal('active');
    expect((await sandboxConnector.getListing!(ctx, store, ref)).status).to.equal('active');
    expect((await sandboxConnector.listListings!(ctx, store, null)).listings).to.deep.equal([
      {
        externalProductId: ref.externalProductId,
        externalVariantId: null,
        sku: 'POSTER-TULIPS',
        title: 'Tulip poster',
        active: true,
      },
    ]);
    await sandboxConnector.unpublishListing!(ctx, store, ref);
    await sandboxConnector.unpublishListing!(ctx, store, { externalProductId: 'sbp_gone', externalVariantId: null });
    expect((await sandboxConnector.listListings!(ctx, store, null)).listings).to.deep.equal([]);
  });

  it('is refused by the platform with another shop’s token (auth), and reaches nothing but its platform in-process', async () => {
    const err = await sandboxConnector.listListings!(
      ctx,
      { ...store, credentials: { ...store.credentials, token: 'sbx_wrong' } },
      null,
    ).catch((e: unknown) => e);
    expect(err).to.be.instanceOf(ConnectorError);
    expect((err as ConnectorError).kind).to.equal('auth');
    const elsewhere = await sandboxConnector
      .connect({ ...ctx, settings: { apiUrl: 'https://sandbox.example.com' } }, {})
      .catch((e: unknown) => e);
    expect((elsewhere as Error).message).to.match(/no network in this test: https:\/\/sandbox\.example\.com\/shops/);
  });
});
