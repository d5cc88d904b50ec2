import { expect } from 'chai';
import { ConnectorError } from '@print-api/connector-kit';
import { wooCommerceConnector as woo } from '../src/index.ts';
import issuedKeys from './fixtures/issued-keys.json' with { type: 'json' };
import wpIndex from './fixtures/wp-index.json' with { type: 'json' };
import { PUBLIC_URL, store, STORE_URL, testContext, useNock, rejection } from './woo-fixtures.ts';

const STATE = 'v1.c3RhdGU.dGFn.Y2lwaGVy';
const CALLBACK = `${PUBLIC_URL}/connectors/woocommerce/credentials/${STATE}`;
const body = (patch: Record<string, unknown> = {}) =>
  Buffer.from(JSON.stringify({ ...issuedKeys, user_id: STATE, ...patch }));

describe('WooCommerce key-issuing flow (/wc-auth/v1/authorize)', () => {
  useNock();
  const flow = woo.credentialRequest!;
  const input = flow.inputSchema.parse({ storeUrl: `${STORE_URL}/` });

  it('sends the merchant to the store to grant read_write, with our state as user_id and HTTPS callback/return URLs', async () => {
    const { redirectUrl } = await flow.begin(testContext(), {
      input,
      state: STATE,
      callbackUrl: CALLBACK,
      returnUrl: `${CALLBACK}/return`,
    });
    const url = new URL(redirectUrl);
    expect(`${url.origin}${url.pathname}`).to.equal(`${STORE_URL}/wc-auth/v1/authorize`);
    expect(Object.fromEntries(url.searchParams)).to.deep.equal({
      app_name: 'Print API',
      scope: 'read_write',
      user_id: STATE,
      return_url: `${CALLBACK}/return`,
      callback_url: CALLBACK,
    });
  });

  it('only asks HTTPS stores', () => {
    expect(flow.inputSchema.safeParse({ storeUrl: 'http://shop.example.com' }).success).to.equal(false);
  });

  it('checks the POSTed keys against the store the request named and describes the store', async () => {
    store()
      .get('/wp-json/wc/v3/webhooks')
      .query(true)
      .basicAuth({ user: issuedKeys.consumer_key, pass: issuedKeys.consumer_secret })
      .reply(200, []);
    store().post('/wp-json/wc/v3/webhooks/batch').reply(200, {});
    store().get('/wp-json/').reply(200, wpIndex);
    const connection = await flow.receive(testContext(), {
      input,
      state: STATE,
      headers: { 'content-type': 'application/json;charset=UTF-8' },
      rawBody: body(),
    });
    expect(connection).to.deep.equal({
      externalId: STORE_URL,
      name: 'Tulip Prints',
      credentials: {
        storeUrl: STORE_URL,
        consumerKey: issuedKeys.consumer_key,
        consumerSecret: issuedKeys.consumer_secret,
      },
    });
  });

  it('refuses keys issued for another request, narrower permissions, and bodies that are not WooCommerce keys', async () => {
    const ctx = testContext();
    expect(
      (await rejection(flow.receive(ctx, { input, state: STATE, headers: {}, rawBody: body({ user_id: 'other' }) })))
        .kind,
    ).to.equal('invalid_payload');
    expect(
      (
        await rejection(
          flow.receive(ctx, { input, state: STATE, headers: {}, rawBody: body({ key_permissions: 'read' }) }),
        )
      ).kind,
    ).to.equal('auth');
    expect(
      (
        await rejection(
          flow.receive(ctx, { input, state: STATE, headers: {}, rawBody: body({ consumer_key: 'ck_nope' }) }),
        )
      ).kind,
    ).to.equal('invalid_payload');
    expect(
      (
        await rejection(
          flow.receive(ctx, { input, state: STATE, headers: {}, rawBody: Buffer.from('consumer_key=ck_x') }),
        )
      ).kind,
    ).to.equal('invalid_payload');
  });

  it('refuses keys the store itself rejects', async () => {
    store()
      .get('/wp-json/wc/v3/webhooks')
      .query(true)
      .reply(401, {
        code: 'woocommerce_rest_authentication_error',
        message: 'Consumer key is invalid.',
        data: { status: 401 },
      });
    expect(
      (await rejection(flow.receive(testContext(), { input, state: STATE, headers: {}, rawBody: body() }))).kind,
    ).to.equal('auth');
  });
});
