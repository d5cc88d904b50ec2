import assert from 'node:assert/strict';
import { createServer, type AddressInfo, type Socket } from 'node:net';
import { nockedPlatformLookup, startTestService, type HostLookup, type TestService } from '@print-api/core/testing';
import { magentoConnector } from '../src/index.ts';

const PUBLIC_URL = 'https://print-api.example.com';
/** A name whose DNS answer is this machine (a base URL a merchant could give). */
const LOOPBACK_NAME = 'magento.loopback-dns.example';

/**
 * Base URLs are typed by merchants, so `POST /stores` must never make the service call its own machine or network
 * (SSRF): the connector calls through core's outbound guard, which refuses a private or reserved address after DNS and
 * before connecting. Only `print-api.example.com` is allow-listed here (not `localhost`).
 */
describe('Magento base URLs that are not public (SSRF guard)', function () {
  this.timeout(30_000);
  let t: TestService;
  let key: string;
  let connections = 0;
  const sockets = new Set<Socket>();
  // What an internal service would answer, should anything ever get here.
  const listener = createServer((socket) => {
    connections++;
    sockets.add(socket);
    socket.end('HTTP/1.1 200 OK\r\ncontent-type: application/json\r\n\r\n[{"code":"INTERNAL"}]');
  });
  const lookup: HostLookup = async (host) =>
    host === LOOPBACK_NAME ? [{ address: '127.0.0.1', family: 4 }] : nockedPlatformLookup(host);

  before(async function () {
    await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
    t = await startTestService(
      this,
      'pglite',
      { PUBLIC_URL, OUTBOUND_ALLOWED_HOSTS: 'print-api.example.com' },
      { connectors: [magentoConnector], outboundLookup: lookup },
    );
    key = (await t.reseller()).key;
  });
  after(async () => {
    await t?.close();
    for (const s of sockets) s.destroy();
    await new Promise((resolve) => listener.close(resolve));
  });

  const port = () => (listener.address() as AddressInfo).port;
  for (const [typed, shown] of [
    [LOOPBACK_NAME, LOOPBACK_NAME],
    ['127.0.0.1', '127.0.0.1'],
    ['0x7f000001', '127.0.0.1'],
    ['[::1]', '[::1]'],
  ])
    it(`refuses https://${typed}:PORT with 422 store_not_connectable, connecting nowhere and storing nothing`, async () => {
      const before = connections;
      const res = await t.api(key, 'POST', '/stores', {
        platform: 'MAGENTO',
        baseUrl: `https://${typed}:${port()}/shop`,
        accessToken: 'k3v9q2m7x1c8b4n6z0p5r2t7y9w3e1a4',
      });
      assert.equal(res.status, 422, JSON.stringify(res.body));
      assert.equal(res.body.error.code, 'store_not_connectable');
      assert.equal(
        res.body.error.message,
        `The store address is not public: ${shown}:${port()} is a local, private or reserved address, which Print API does not connect to. Give the Magento store's public https address.`,
      );
      assert.equal(connections - before, 0);
      assert.deepEqual((await t.api(key, 'GET', '/stores')).body.data, []);
    });

  for (const host of ['169.254.169.254', '10.0.0.1', '192.168.1.1'])
    it(`refuses https://${host} (cloud metadata, private networks)`, async () => {
      const res = await t.api(key, 'POST', '/stores', {
        platform: 'MAGENTO',
        baseUrl: `https://${host}`,
        accessToken: 'k3v9q2m7x1c8b4n6z0p5r2t7y9w3e1a4',
      });
      assert.equal(res.status, 422, JSON.stringify(res.body));
      assert.equal(res.body.error.code, 'store_not_connectable');
    });
});
