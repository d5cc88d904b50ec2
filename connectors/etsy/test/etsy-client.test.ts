import { expect } from 'chai';
import { ConnectorError, type HttpClient, type HttpRequest, type HttpResponse } from '@print-api/connector-kit';
import { settingsSchema } from '../src/config.ts';
import { DAY_EXHAUSTED_WAIT_MS, EtsyClient } from '../src/etsy-client.ts';
import { codeChallenge, codeVerifier, consentUrl, etsyState } from '../src/install.ts';
import { etsyCarrierName, pushTracking } from '../src/shipment-push.ts';
import receiptFixture from './fixtures/receipt.json' with { type: 'json' };

const settings = settingsSchema.parse({ keystring: 'kstr', sharedSecret: 'shh', apiUrl: 'https://openapi.etsy.test/' });

/** Answers each request with the next reply, recording what was sent. */
function stubHttp(replies: Array<Partial<HttpResponse>>): HttpClient & { sent: Array<HttpRequest & { at: number }> } {
  const sent: Array<HttpRequest & { at: number }> = [];
  return {
    sent,
    async request(req) {
      sent.push({ ...req, at: Date.now() });
      const r = replies.shift() ?? { status: 200, body: '{}' };
      return { status: r.status ?? 200, headers: r.headers ?? {}, body: r.body ?? '{}' };
    },
    download: async (req) => Promise.reject(new Error(`no downloads in this test: ${req.url}`)),
  };
}
const failure = async (p: Promise<unknown>) => {
  try {
    await p;
  } catch (err) {
    return err as ConnectorError;
  }
  throw new Error('expected a failure');
};

describe('Etsy client', () => {
  it('sends x-api-key <keystring>:<shared secret> and the Bearer token, on the configured origin', async () => {
    const http = stubHttp([{ status: 200, body: '{"user_id":1,"shop_id":2}' }]);
    await new EtsyClient({ http, settings, accessToken: '1.tok' }).call({
      method: 'GET',
      path: '/users/me',
      operation: 'getMe',
    });
    expect(http.sent[0]).to.deep.include({
      method: 'GET',
      url: 'https://openapi.etsy.test/v3/application/users/me',
      operation: 'getMe',
    });
    expect(http.sent[0]!.headers).to.deep.include({ 'x-api-key': 'kstr:shh', authorization: 'Bearer 1.tok' });
  });

  it("types Etsy's errors: the shared-secret 403 names the settings, 401 auth, 404 invalid, 5xx unavailable", async () => {
    const call = (status: number, body: string) =>
      new EtsyClient({ http: stubHttp([{ status, body }]), settings, accessToken: 't' }).call({
        method: 'GET',
        path: '/x',
        operation: 'x',
      });
    const secret = await failure(call(403, '{"error":"Shared secret is required in x-api-key header."}'));
    expect(secret).to.include({ kind: 'auth' });
    expect(secret.message).to.contain('CONNECTOR_ETSY_SHARED_SECRET');
    expect(await failure(call(401, '{"error":"invalid_token"}'))).to.include({ kind: 'auth', status: 401 });
    expect(await failure(call(404, '{"error":"Receipt not found"}'))).to.include({
      kind: 'invalid_payload',
      message: 'Etsy answered 404: Receipt not found',
    });
    expect(await failure(call(503, 'upstream'))).to.include({ kind: 'upstream_unavailable' });
  });

  it('a 429 waits Retry-After, else a second, else (the day spent) a quarter of an hour', async () => {
    const limited = (headers: Record<string, string>) =>
      failure(
        new EtsyClient({
          http: stubHttp([{ status: 429, headers, body: '{"error":"Too many requests"}' }]),
          settings,
          accessToken: 't',
        }).call({ method: 'GET', path: '/x', operation: 'x' }),
      );
    expect(await limited({ 'retry-after': '7' })).to.include({ kind: 'rate_limited', retryAfterMs: 7000 });
    expect(await limited({})).to.include({ kind: 'rate_limited', retryAfterMs: 1000 });
    expect(await limited({ 'x-remaining-today': '0' })).to.include({
      kind: 'rate_limited',
      retryAfterMs: DAY_EXHAUSTED_WAIT_MS,
    });
  });

  it('honours x-remaining-this-second: 0 (the next call waits for the next second) and x-remaining-today: 0 (no next call)', async () => {
    const second = stubHttp([
      {
        headers: {
          'x-limit-per-second': '10',
          'x-remaining-this-second': '0',
          'x-limit-per-day': '10000',
          'x-remaining-today': '500',
        },
      },
      {},
    ]);
    const client = new EtsyClient({ http: second, settings, accessToken: 't' });
    await client.call({ method: 'GET', path: '/a', operation: 'a' });
    await client.call({ method: 'GET', path: '/b', operation: 'b' });
    expect(second.sent[1]!.at - second.sent[0]!.at).to.be.at.least(900);

    const day = stubHttp([{ headers: { 'x-limit-per-day': '10000', 'x-remaining-today': '0' } }, {}]);
    const spent = new EtsyClient({ http: day, settings, accessToken: 't' });
    await spent.call({ method: 'GET', path: '/a', operation: 'a' });
    expect(await failure(spent.call({ method: 'GET', path: '/b', operation: 'b' }))).to.include({
      kind: 'rate_limited',
      retryAfterMs: DAY_EXHAUSTED_WAIT_MS,
    });
    expect(day.sent).to.have.length(1);
  });
});

describe('Etsy OAuth (PKCE S256)', () => {
  it("computes RFC 7636's S256 challenge", () => {
    expect(codeChallenge('dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk')).to.equal(
      'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
    );
  });

  it('derives a 43-character verifier and a short state from the install, different for each install and app secret', () => {
    const v = codeVerifier(settings, 'state-1');
    expect(v).to.match(/^[A-Za-z0-9_-]{43}$/);
    expect(codeVerifier(settings, 'state-2')).not.to.equal(v);
    expect(codeVerifier({ ...settings, sharedSecret: 'other' }, 'state-1')).not.to.equal(v);
    expect(etsyState(settings, 'state-1')).to.match(/^[A-Za-z0-9_-]{32}$/);
  });

  it("points the merchant at Etsy's consent screen with our keystring, scopes, callback and challenge", () => {
    const url = new URL(
      consentUrl(settings, {
        state: 'sealed-state',
        callbackUrl: 'https://print-api.example.com/connectors/etsy/callback',
      }),
    );
    expect(url.origin + url.pathname).to.equal('https://www.etsy.com/oauth/connect');
    expect(Object.fromEntries(url.searchParams)).to.deep.equal({
      response_type: 'code',
      client_id: 'kstr',
      redirect_uri: 'https://print-api.example.com/connectors/etsy/callback',
      scope: 'transactions_r transactions_w shops_r listings_r listings_w',
      state: etsyState(settings, 'sealed-state'),
      code_challenge: codeChallenge(codeVerifier(settings, 'sealed-state')),
      code_challenge_method: 'S256',
    });
    expect(url.search).to.contain('scope=transactions_r%20transactions_w%20shops_r');
  });
});

describe('Etsy tracking push', () => {
  const shipment = (carrier: string) => ({
    externalOrderId: '3456789012',
    carrier,
    trackingNumber: '3SABCD1234567',
    trackingUrl: 'https://track.example/3SABCD1234567',
    lines: [],
  });

  it("maps our carriers to Etsy's names, else other", () => {
    expect(
      ['PostNL', 'USPS', 'Royal Mail', 'DHL Express', 'fedex', 'Canada Post', 'Bring', ''].map(etsyCarrierName),
    ).to.deep.equal(['postnl', 'usps', 'royal-mail', 'dhl-express', 'fedex', 'canada-post', 'other', 'other']);
  });

  it('posts the tracking form-encoded; an unknown carrier goes as other with a note carrying the link', async () => {
    const http = stubHttp([{ body: JSON.stringify(receiptFixture) }, { body: JSON.stringify(receiptFixture) }]);
    await pushTracking(new EtsyClient({ http, settings, accessToken: 't' }), '12345', shipment('Bring'));
    const post = http.sent[1]!;
    expect(post).to.deep.include({
      method: 'POST',
      url: 'https://openapi.etsy.test/v3/application/shops/12345/receipts/3456789012/tracking',
      operation: 'createReceiptShipment',
    });
    expect(post.headers!['content-type']).to.equal('application/x-www-form-urlencoded');
    expect(Object.fromEntries(new URLSearchParams(post.body))).to.deep.equal({
      tracking_code: '3SABCD1234567',
      carrier_name: 'other',
      send_bcc: 'false',
      note_to_buyer: 'Shipped with Bring. Tracking number 3SABCD1234567: https://track.example/3SABCD1234567',
    });
  });

  it('does not push again a tracking code the receipt already has (Etsy e-mails the buyer on every push)', async () => {
    const shipped = {
      ...receiptFixture,
      shipments: [{ receipt_shipping_id: 1, carrier_name: 'postnl', tracking_code: '3SABCD1234567' }],
    };
    const http = stubHttp([{ body: JSON.stringify(shipped) }]);
    await pushTracking(new EtsyClient({ http, settings, accessToken: 't' }), '12345', shipment('PostNL'));
    expect(http.sent.map((r) => r.method)).to.deep.equal(['GET']);
  });
});
