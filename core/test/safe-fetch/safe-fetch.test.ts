import { expect } from 'chai';
import { embeddedIPv4, isBlockedAddress } from '../../src/infra/safe-fetch/address-policy.ts';
import { createSafeFetch, SafeFetchError } from '../../src/infra/safe-fetch/safe-fetch.ts';
import { serve, startHttpsServer, type TestHttpsServer } from '../helpers/https-server.ts';

async function refusal(p: Promise<unknown>): Promise<SafeFetchError> {
  try {
    await p;
  } catch (err) {
    expect(err).to.be.instanceOf(SafeFetchError);
    return err as SafeFetchError;
  }
  throw new Error('expected a SafeFetchError');
}

describe('address policy', () => {
  for (const address of ['127.0.0.1', '10.1.2.3', '172.16.0.1', '192.168.1.1', '169.254.169.254', '100.64.0.1', '0.0.0.0', '224.0.0.1', '::1', '::', 'fe80::1', 'fc00::1', 'fd12::1', '::ffff:127.0.0.1', '::ffff:7f00:1', '::ffff:a9fe:a9fe', '::127.0.0.1', '64:ff9b::7f00:1', 'ff02::1']) {
    it(`blocks ${address}`, () => expect(isBlockedAddress(address)).to.equal(true));
  }
  for (const address of ['93.184.216.34', '8.8.8.8', '2606:4700:4700::1111', '::ffff:8.8.8.8']) {
    it(`allows ${address}`, () => expect(isBlockedAddress(address)).to.equal(false));
  }
  it('finds the IPv4 inside mapped addresses', () => {
    expect(embeddedIPv4('::ffff:7f00:1')).to.equal('127.0.0.1');
    expect(embeddedIPv4('::ffff:10.0.0.1')).to.equal('10.0.0.1');
    expect(embeddedIPv4('2001:db8::1')).to.equal(undefined);
  });
});

describe('safe fetch (real local HTTPS server)', function () {
  let server: TestHttpsServer;
  let other: TestHttpsServer;
  const make = (extra: Partial<Parameters<typeof createSafeFetch>[0]> = {}) =>
    createSafeFetch({ allowedHosts: ['localhost'], userAgent: 'print-api-test', ca: [server.ca], ...extra });

  before(async () => {
    server = await startHttpsServer();
    other = await startHttpsServer();
    server.route('/ok', serve('hello', 'text/plain'));
    server.route('/big', serve(Buffer.alloc(1_000_000, 1), 'application/octet-stream'));
    server.route('/slow', async (_req, res) => {
      await new Promise((r) => setTimeout(r, 1500));
      res.end('late');
    });
    for (let i = 0; i < 8; i++) server.route(`/hop${i}`, (_req, res) => void res.writeHead(302, { location: `/hop${i + 1}` }).end());
    server.route('/hop8', serve('arrived', 'text/plain'));
    server.route('/to-loopback', (_req, res) => void res.writeHead(302, { location: `https://127.0.0.2:${other.port}/ok` }).end());
    server.route('/to-private', (_req, res) => void res.writeHead(301, { location: 'https://10.0.0.1/secret' }).end());
    server.route('/to-metadata', (_req, res) => void res.writeHead(307, { location: 'https://169.254.169.254/latest/meta-data/' }).end());
    server.route('/to-http', (_req, res) => void res.writeHead(302, { location: `http://localhost:${server.port}/ok` }).end());
  });
  after(async () => {
    await server.close();
    await other.close();
  });

  it('fetches from an allowed host', async () => {
    const res = await make().request(`${server.url}/ok`, { timeoutMs: 2000, maxRedirects: 0, maxBodyBytes: 1000 });
    expect(res.status).to.equal(200);
    expect(res.body.toString()).to.equal('hello');
  });

  it('refuses plain http and other schemes', async () => {
    expect((await refusal(make().request(`http://localhost:${server.port}/ok`, { timeoutMs: 1000, maxRedirects: 0, maxBodyBytes: 10 }))).code).to.equal('scheme_not_allowed');
    expect((await refusal(make().request('file:///etc/passwd', { timeoutMs: 1000, maxRedirects: 0, maxBodyBytes: 10 }))).code).to.equal('scheme_not_allowed');
  });

  for (const target of ['https://127.0.0.1/', 'https://10.0.0.1/', 'https://169.254.169.254/latest/', 'https://[::1]/', 'https://[::ffff:127.0.0.1]/', 'https://[::ffff:7f00:1]/', 'https://2130706433/', 'https://0177.0.0.1/', 'https://0x7f.0.0.1/', 'https://100.64.0.1/', 'https://[fe80::1]/', 'https://[fc00::1]/']) {
    it(`refuses ${target} before connecting`, async () => {
      const err = await refusal(make({ allowedHosts: [] }).request(target, { timeoutMs: 1000, maxRedirects: 0, maxBodyBytes: 10 }));
      expect(err.code).to.equal('address_blocked');
    });
  }

  it('refuses a hostname that resolves to a private address', async () => {
    const fetcher = make({ allowedHosts: [], resolve: async () => [{ address: '192.168.0.10', family: 4 }] });
    const err = await refusal(fetcher.request('https://files.attacker.example/x.pdf', { timeoutMs: 1000, maxRedirects: 0, maxBodyBytes: 10 }));
    expect(err.code).to.equal('address_blocked');
    expect(err.message).to.contain('192.168.0.10');
  });

  it('refuses when any resolved address is private (DNS with a public and a private answer)', async () => {
    const fetcher = make({ allowedHosts: [], resolve: async () => [{ address: '93.184.216.34', family: 4 }, { address: '127.0.0.1', family: 4 }] });
    expect((await refusal(fetcher.checkUrl('https://mixed.example/'))).code).to.equal('address_blocked');
  });

  it('follows a redirect chain', async () => {
    const res = await make().request(`${server.url}/hop5`, { timeoutMs: 2000, maxRedirects: 5, maxBodyBytes: 100 });
    expect(res.body.toString()).to.equal('arrived');
    expect(res.redirects).to.have.length(3);
  });

  it('stops after the maximum number of redirects', async () => {
    expect((await refusal(make().request(`${server.url}/hop0`, { timeoutMs: 2000, maxRedirects: 5, maxBodyBytes: 100 }))).code).to.equal('too_many_redirects');
  });

  it('returns a redirect as is when redirects are not followed', async () => {
    const res = await make().request(`${server.url}/hop0`, { timeoutMs: 2000, maxRedirects: 0, maxBodyBytes: 100 });
    expect(res.status).to.equal(302);
  });

  for (const [path, code] of [['/to-loopback', 'address_blocked'], ['/to-private', 'address_blocked'], ['/to-metadata', 'address_blocked'], ['/to-http', 'scheme_not_allowed']] as const) {
    it(`checks the redirect hop ${path}`, async () => {
      expect((await refusal(make().request(`${server.url}${path}`, { timeoutMs: 2000, maxRedirects: 5, maxBodyBytes: 100 }))).code).to.equal(code);
    });
  }

  it('times out a slow server', async () => {
    const started = Date.now();
    expect((await refusal(make().request(`${server.url}/slow`, { timeoutMs: 300, maxRedirects: 0, maxBodyBytes: 100 }))).code).to.equal('timeout');
    expect(Date.now() - started).to.be.below(1200);
  });

  it('reads no more than maxBodyBytes', async () => {
    const res = await make().request(`${server.url}/big`, { timeoutMs: 2000, maxRedirects: 0, maxBodyBytes: 4096 });
    expect(res.body.length).to.equal(4096);
  });

  it('refuses a certificate it does not trust', async () => {
    const untrusting = createSafeFetch({ allowedHosts: ['localhost'], userAgent: 'x' });
    expect((await refusal(untrusting.request(`${server.url}/ok`, { timeoutMs: 2000, maxRedirects: 0, maxBodyBytes: 10 }))).code).to.equal('tls_failed');
  });
});
