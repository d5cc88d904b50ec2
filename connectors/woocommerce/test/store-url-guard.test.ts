import { expect } from 'chai';
import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import nock from 'nock';
import {
  nockedPlatformLookup,
  startTestService,
  type HostLookup,
  type TestService,
  scaled,
} from '@print-api/core/testing';
import { wooCommerceConnector } from '../src/index.ts';
import { CREDENTIALS } from './woo-fixtures.ts';

const PUBLIC_URL = 'https://print-api.example.com';
/** A name whose DNS answer is this machine (a store URL a merchant could register). */
const LOOPBACK_NAME = 'shop.loopback-dns.example';

/** TCP listeners on 127.0.0.1 and ::1, one port, counting every connection: the proof nothing was called. */
async function startConnectionRecorder(): Promise<{
  port: number;
  connections: () => number;
  close: () => Promise<void>;
}> {
  let connections = 0;
  const sockets = new Set<Socket>();
  const listen = (host: string, port: number): Promise<Server> =>
    new Promise((resolve, reject) => {
      const server = createServer((socket) => {
        connections++;
        sockets.add(socket);
        socket.on('close', () => sockets.delete(socket));
        // What an internal service would answer, should anything ever get here.
        socket.end('HTTP/1.1 200 OK\r\ncontent-type: application/json\r\n\r\n{"name":"INTERNAL-ADMIN-PANEL"}');
      });
      server.once('error', reject);
      server.listen(port, host, () => resolve(server));
    });
  const v4 = await listen('127.0.0.1', 0);
  const port = (v4.address() as AddressInfo).port;
  // IPv6 loopback may be missing (a container without it): the v6 URLs are then refused all the same.
  const v6 = await listen('::1', port).catch(() => undefined);
  return {
    port,
    connections: () => connections,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await Promise.all(
        [v4, v6].filter((s) => s !== undefined).map((s) => new Promise<void>((resolve) => s.close(() => resolve()))),
      );
    },
  };
}

/**
 * Store URLs are typed by merchants, so `POST /stores` must never make the service call its own
 * machine or network (SSRF): every connector call goes through the outbound guard, which refuses
 * a private or reserved address after DNS and before connecting, and the API says the address
 * is not public without saying what is there. Only `print-api.example.com` is allow-listed here
 * (the default test set-up exempts `localhost`, which is exactly what a merchant must not reach).
 */
describe('WooCommerce store URLs that are not public (SSRF guard)', function () {
  this.timeout(scaled(30_000));
  let t: TestService;
  let recorder: Awaited<ReturnType<typeof startConnectionRecorder>>;
  let key: string;

  const lookup: HostLookup = async (host) =>
    host === LOOPBACK_NAME ? [{ address: '127.0.0.1', family: 4 }] : nockedPlatformLookup(host);
  const connect = (storeUrl: string) =>
    t.api(key, 'POST', '/stores', {
      platform: 'WOOCOMMERCE',
      storeUrl,
      consumerKey: CREDENTIALS.consumerKey,
      consumerSecret: CREDENTIALS.consumerSecret,
    });

  before(async function () {
    nock.disableNetConnect();
    // Every spelling of loopback may connect (so a regression shows on the listener); nothing else may.
    nock.enableNetConnect((host: string) =>
      /^(127\.0\.0\.1|localhost|0\.0\.0\.0|\[?::1\]?|\[?::ffff:7f00:1\]?|shop\.loopback-dns\.example)(:\d+)?$/.test(
        host,
      ),
    );
    recorder = await startConnectionRecorder();
    t = await startTestService(
      this,
      'pglite',
      { PUBLIC_URL, OUTBOUND_ALLOWED_HOSTS: 'print-api.example.com' },
      { connectors: [wooCommerceConnector], outboundLookup: lookup },
    );
    key = (await t.reseller()).key;
  });
  after(async () => {
    await t?.close();
    await recorder?.close();
    nock.cleanAll();
    nock.enableNetConnect();
  });

  /**
   * The refusal every hostile URL gets: 422, the host as given (no resolved address), nothing
   * read from it, no connection to the loopback listener, no store.
   */
  async function expectNotPublic(request: () => Promise<{ status: number; body: any }>, host: string): Promise<void> {
    const before = recorder.connections();
    const res = await request();
    expect(recorder.connections() - before, 'connections to the loopback listener').to.equal(0);
    expect(res.status, JSON.stringify(res.body)).to.equal(422);
    expect(res.body.error.code).to.equal('store_not_connectable');
    expect(res.body.error.message).to.equal(
      `The store address is not public: ${host} is a local, private or reserved address, which Print API does not connect to. Give the WooCommerce store's public https address.`,
    );
    expect(JSON.stringify(res.body)).to.not.contain('INTERNAL-ADMIN-PANEL');
    expect((await t.api(key, 'GET', '/stores')).body.data, 'stores connected').to.deep.equal([]);
  }

  // [as typed, the host the API names (WHATWG's normal form)]: each on the listener's port.
  const loopback: Array<[string, string]> = [
    ['127.0.0.1', '127.0.0.1'],
    ['localhost', 'localhost'],
    ['0x7f000001', '127.0.0.1'],
    ['2130706433', '127.0.0.1'],
    ['127.1', '127.0.0.1'],
    ['0177.0.0.1', '127.0.0.1'],
    ['0.0.0.0', '0.0.0.0'],
    ['[::1]', '[::1]'],
    ['[::ffff:127.0.0.1]', '[::ffff:7f00:1]'],
    [LOOPBACK_NAME, LOOPBACK_NAME],
  ];
  for (const [typed, shown] of loopback) {
    it(`refuses https://${typed}:PORT with 422 store_not_connectable, and never connects`, async () => {
      await expectNotPublic(() => connect(`https://${typed}:${recorder.port}`), `${shown}:${recorder.port}`);
    });
  }

  for (const host of ['169.254.169.254', '10.0.0.1', '192.168.1.1', '172.16.0.1', '100.64.0.1', '[fd00::1]']) {
    it(`refuses https://${host} (cloud metadata, private networks) with 422 store_not_connectable`, async () => {
      await expectNotPublic(() => connect(`https://${host}`), host);
    });
  }

  it('refuses a private store URL in the key-issuing flow too, when the keys arrive', async () => {
    const begin = await t.api(key, 'POST', '/stores/credential-requests', {
      platform: 'WOOCOMMERCE',
      storeUrl: `https://127.0.0.1:${recorder.port}`,
    });
    expect(begin.status, JSON.stringify(begin.body)).to.equal(201);
    const authorize = new URL(begin.body.data.redirectUrl as string);
    const callback = authorize.searchParams.get('callback_url')!.replace(PUBLIC_URL, t.baseUrl);
    const keys = {
      key_id: 7,
      user_id: authorize.searchParams.get('user_id'),
      consumer_key: CREDENTIALS.consumerKey,
      consumer_secret: CREDENTIALS.consumerSecret,
      key_permissions: 'read_write',
    };
    const deliver = async () => {
      const res = await fetch(callback, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(keys),
      });
      return { status: res.status, body: await res.json() };
    };
    await expectNotPublic(deliver, `127.0.0.1:${recorder.port}`);
  });

  it('does not follow a public store that redirects to a private address', async () => {
    const shop = 'https://redirecting-shop.example.com';
    nock(shop)
      .persist()
      .get(/.*/)
      .query(true)
      .reply(302, '', { location: `https://127.0.0.1:${recorder.port}/wp-json/wc/v3/webhooks` });
    const before = recorder.connections();
    const res = await connect(shop);
    expect(recorder.connections() - before, 'connections to the loopback listener').to.equal(0);
    expect(res.status, JSON.stringify(res.body)).to.equal(422);
    expect(res.body.error.code).to.equal('store_not_connectable');
    expect(JSON.stringify(res.body)).to.not.contain('INTERNAL-ADMIN-PANEL');
  });
});
