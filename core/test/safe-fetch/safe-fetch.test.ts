import { expect } from 'chai';
import {
  createSafeFetch,
  SafeFetchError,
  type SafeFetchConfig,
  type SafeRequestOptions,
} from '../../src/infra/safe-fetch/safe-fetch.ts';
import {
  answerSlowly,
  neverAnswer,
  redirectTo,
  sendBytes,
  startHttpsServer,
  type TestHttpsServer,
} from '../helpers/https-server.ts';
import { scaled } from '../helpers/wait.ts';

/** Awaits a promise that must fail with a SafeFetchError, and returns that error. */
export async function refusal(work: Promise<unknown>): Promise<SafeFetchError> {
  try {
    await work;
  } catch (err) {
    expect(err).to.be.instanceOf(SafeFetchError);
    return err as SafeFetchError;
  }
  expect.fail('expected a SafeFetchError');
}

// A local server answers in milliseconds, but a busy machine may take seconds: the timeout is no subject here
// (the timeout tests give their own, to a server that never answers).
const GET: SafeRequestOptions = { timeoutMs: 3_600_000, maxRedirects: 5, maxBodyBytes: 1024 * 1024 };

describe('SafeFetch against a real local HTTPS server', () => {
  let server: TestHttpsServer;
  const fetcher = (config: Partial<SafeFetchConfig> = {}) =>
    createSafeFetch({ allowedHosts: ['localhost'], ca: [server.ca], userAgent: 'print-api-test/1', ...config });

  before(async () => {
    server = await startHttpsServer();
    server.route(
      '/hello',
      (req, res) =>
        void res
          .writeHead(200, { 'content-type': 'text/plain', 'x-seen-agent': req.headers['user-agent'] ?? '' })
          .end('hello'),
    );
    server.route(
      '/echo',
      (req, res, body) =>
        void res
          .writeHead(200, { 'content-type': 'application/json' })
          .end(JSON.stringify({ method: req.method, body: body.toString(), headers: req.headers })),
    );
  });
  after(() => server.close());

  describe('what it fetches', () => {
    it('fetches from an allow-listed host and reports the final URL', async () => {
      const res = await fetcher().request(`${server.url}/hello`, GET);
      expect(res.status).to.equal(200);
      expect(res.body.toString()).to.equal('hello');
      expect(res.url).to.equal(`${server.url}/hello`);
      expect(res.redirects).to.deep.equal([]);
      expect(res.headers['x-seen-agent']).to.equal('print-api-test/1');
    });

    it('matches allow-listed hosts case-insensitively', async () => {
      const res = await fetcher({ allowedHosts: ['LocalHost'] }).request(`https://LOCALHOST:${server.port}/hello`, GET);
      expect(res.status).to.equal(200);
    });

    it('sends a POST body with its length', async () => {
      const res = await fetcher().request(`${server.url}/echo`, {
        ...GET,
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: '{"a":1}',
      });
      const seen = JSON.parse(res.body.toString()) as { method: string; body: string; headers: Record<string, string> };
      expect(seen).to.include({ method: 'POST', body: '{"a":1}' });
      expect(seen.headers['content-length']).to.equal('7');
      expect(seen.headers['content-type']).to.equal('application/json');
    });

    for (const method of ['PUT', 'PATCH', 'DELETE'] as const) {
      it(`sends a ${method} with its body`, async () => {
        const res = await fetcher().request(`${server.url}/echo`, {
          ...GET,
          method,
          headers: { 'content-type': 'application/json' },
          body: '{"status":"completed"}',
        });
        const seen = JSON.parse(res.body.toString()) as {
          method: string;
          body: string;
          headers: Record<string, string>;
        };
        expect(seen).to.include({ method, body: '{"status":"completed"}' });
        expect(seen.headers['content-length']).to.equal('22');
      });
    }

    it('keeps only maxBodyBytes of a large body and hangs up', async () => {
      server.route('/large', sendBytes(Buffer.alloc(8 * 1024 * 1024, 0x61)));
      const started = Date.now();
      const res = await fetcher().request(`${server.url}/large`, { ...GET, maxBodyBytes: 1000 });
      expect(res.status).to.equal(200);
      expect(res.body.length).to.equal(1000);
      // Far less than reading 8 MB on this machine would take (a deadline grown by the run's time scale).
      expect(Date.now() - started).to.be.below(scaled(2000));
    });

    it('fails with tls_failed when the certificate is not trusted', async () => {
      const err = await refusal(fetcher({ ca: [] }).request(`${server.url}/hello`, GET));
      expect(err.code).to.equal('tls_failed');
    });

    it('still checks the certificate against the host name', async () => {
      // An allow-listed name the certificate does not cover, pointed at the test server.
      const lookup = async () => [{ address: '127.0.0.1', family: 4 as const }];
      const err = await refusal(
        fetcher({ allowedHosts: ['files.example.test'], lookup }).request(
          `https://files.example.test:${server.port}/hello`,
          GET,
        ),
      );
      expect(err.code).to.equal('tls_failed');
    });

    it('fails with connection_failed when nothing listens', async () => {
      const gone = await startHttpsServer();
      await gone.close();
      const err = await refusal(fetcher().request(`https://localhost:${gone.port}/`, GET));
      expect(err.code).to.equal('connection_failed');
    });
  });

  describe('what it refuses', () => {
    for (const url of [
      'http://localhost/hello',
      'ftp://localhost/file.pdf',
      'file:///etc/passwd',
      'data:text/plain,hi',
      'javascript:alert(1)',
    ]) {
      it(`refuses ${url} (https only)`, async () => {
        const err = await refusal(fetcher().request(url.replace('localhost', `localhost:${server.port}`), GET));
        expect(err.code).to.equal('scheme_not_allowed');
      });
    }

    it('refuses a string that is not a URL', async () => {
      expect((await refusal(fetcher().request('not a url', GET))).code).to.equal('invalid_url');
    });

    it('refuses URLs carrying credentials instead of dropping them silently', async () => {
      expect((await refusal(fetcher().request(`https://user:pw@localhost:${server.port}/hello`, GET))).code).to.equal(
        'invalid_url',
      );
    });

    // These point at the test server's own port: a zero connection count proves the refusal came first.
    const loopbackForms: Array<[string, string]> = [
      ['127.0.0.1', '127.0.0.1'],
      ['2130706433', '127.0.0.1'], // decimal
      ['0177.0.0.1', '127.0.0.1'], // octal
      ['0x7f.1', '127.0.0.1'], // hex, short form
      ['[::1]', '::1'],
      ['[::ffff:127.0.0.1]', '::ffff:7f00:1'], // the URL parser rewrites it to hex
      ['[::ffff:7f00:1]', '::ffff:7f00:1'],
    ];
    for (const [host, address] of loopbackForms) {
      it(`refuses https://${host}/ before connecting`, async () => {
        const before = server.connections();
        const err = await refusal(fetcher({ allowedHosts: [] }).request(`https://${host}:${server.port}/hello`, GET));
        expect(err.code).to.equal('address_blocked');
        expect(err.address).to.equal(address);
        expect(err.message).to.contain(address);
        expect(server.connections()).to.equal(before);
      });
    }

    for (const host of ['10.0.0.1', '169.254.169.254', '100.64.0.1', '[fe80::1]', '[fc00::1]', '0.0.0.0', '[::]']) {
      it(`refuses https://${host}/ before connecting`, async () => {
        const client = fetcher({ allowedHosts: [] });
        // checkUrl never connects: should the policy ever regress, the test fails here instead of sending a packet.
        expect((await refusal(client.checkUrl(`https://${host}/`))).code).to.equal('address_blocked');
        expect((await refusal(client.request(`https://${host}/latest/meta-data/`, GET))).code).to.equal(
          'address_blocked',
        );
      });
    }

    it('refuses a host name that resolves to a private address, naming both', async () => {
      const lookup = async () => [{ address: '192.168.0.10', family: 4 as const }];
      const err = await refusal(
        fetcher({ allowedHosts: [], lookup }).request('https://files.attacker.example/card.pdf', GET),
      );
      expect(err.code).to.equal('address_blocked');
      expect(err.message).to.contain('files.attacker.example').and.contain('192.168.0.10');
    });

    it('refuses a host name when any one of its addresses is private', async () => {
      const lookup = async () => [
        { address: '93.184.216.34', family: 4 as const },
        { address: '::ffff:169.254.169.254', family: 6 as const },
      ];
      const err = await refusal(fetcher({ allowedHosts: [], lookup }).request('https://mixed.example/', GET));
      expect(err.code).to.equal('address_blocked');
      expect(err.address).to.equal('::ffff:169.254.169.254');
    });

    it('fails with dns_failed when the name does not resolve', async () => {
      const lookup = async (): Promise<never> => {
        throw Object.assign(new Error('getaddrinfo ENOTFOUND nowhere.example'), { code: 'ENOTFOUND' });
      };
      expect(
        (await refusal(fetcher({ allowedHosts: [], lookup }).request('https://nowhere.example/', GET))).code,
      ).to.equal('dns_failed');
      expect(
        (await refusal(fetcher({ allowedHosts: [], lookup: async () => [] }).request('https://empty.example/', GET)))
          .code,
      ).to.equal('dns_failed');
    });

    it('connects to the address it checked, without a second DNS answer (no rebinding)', async () => {
      let calls = 0;
      // A rebinding resolver: the second answer would point somewhere else.
      const lookup = async () =>
        calls++ === 0 ? [{ address: '127.0.0.1', family: 4 as const }] : [{ address: '10.0.0.1', family: 4 as const }];
      const res = await fetcher({ lookup }).request(`${server.url}/hello`, GET);
      expect(res.status).to.equal(200);
      expect(calls).to.equal(1);
    });

    it("reuses a host's addresses for a few seconds, checked again on every request", async () => {
      let calls = 0;
      const lookup = async () => {
        calls++;
        return [{ address: '127.0.0.1', family: 4 as const }];
      };
      const client = fetcher({ lookup });
      for (let i = 0; i < 3; i++) expect((await client.request(`${server.url}/hello`, GET)).status).to.equal(200);
      expect(calls).to.equal(1);
      // Checked per request, not per answer: without the exemption the same cached answer is refused.
      const guarded = fetcher({ allowedHosts: [], lookup });
      expect((await refusal(guarded.request(`${server.url}/hello`, GET))).code).to.equal('address_blocked');
      expect((await refusal(guarded.request(`${server.url}/hello`, GET))).code).to.equal('address_blocked');
      expect(calls).to.equal(2);
    });

    it('asks the resolver again after a failed lookup, and every time with dnsCacheMs 0', async () => {
      let calls = 0;
      const lookup = async () => {
        if (calls++ === 0) throw Object.assign(new Error('getaddrinfo EAI_AGAIN localhost'), { code: 'EAI_AGAIN' });
        return [{ address: '127.0.0.1', family: 4 as const }];
      };
      const client = fetcher({ lookup });
      expect((await refusal(client.request(`${server.url}/hello`, GET))).code).to.equal('dns_failed');
      expect((await client.request(`${server.url}/hello`, GET)).status).to.equal(200);
      expect(calls).to.equal(2);
      const uncached = fetcher({ lookup, dnsCacheMs: 0 });
      await uncached.request(`${server.url}/hello`, GET);
      await uncached.request(`${server.url}/hello`, GET);
      expect(calls).to.equal(4);
    });
  });

  describe('redirects', () => {
    before(() => {
      for (let i = 1; i <= 6; i++)
        server.route(`/hop/${i}`, redirectTo(`/hop/${i + 1}`, [301, 302, 303, 307, 308][i % 5]));
      server.route('/hop/7', sendBytes('arrived', 'text/plain'));
      server.route('/chain-of-3', redirectTo('/hop/5'));
    });

    it('follows a chain of 3, resolving relative locations', async () => {
      const res = await fetcher().request(`${server.url}/chain-of-3`, GET);
      expect(res.status).to.equal(200);
      expect(res.body.toString()).to.equal('arrived');
      expect(res.redirects).to.deep.equal([`${server.url}/hop/5`, `${server.url}/hop/6`, `${server.url}/hop/7`]);
      expect(res.url).to.equal(`${server.url}/hop/7`);
    });

    it('follows exactly maxRedirects', async () => {
      const res = await fetcher().request(`${server.url}/hop/2`, { ...GET, maxRedirects: 5 });
      expect(res.redirects).to.have.length(5);
    });

    it('stops at the 6th redirect when maxRedirects is 5', async () => {
      const err = await refusal(fetcher().request(`${server.url}/hop/1`, { ...GET, maxRedirects: 5 }));
      expect(err.code).to.equal('too_many_redirects');
    });

    it('returns the 3xx itself when maxRedirects is 0', async () => {
      const res = await fetcher().request(`${server.url}/chain-of-3`, { ...GET, maxRedirects: 0 });
      expect(res.status).to.equal(302);
      expect(res.headers.location).to.equal('/hop/5');
    });

    for (const target of [
      'https://127.0.0.2:PORT/hello',
      'https://10.0.0.1/internal',
      'https://169.254.169.254/latest/meta-data/',
      'https://[::1]:PORT/hello',
    ]) {
      it(`refuses a redirect to ${target.replace(':PORT', '')} at that hop`, async () => {
        const location = target.replace('PORT', String(server.port));
        // Never let a policy regression send a packet off loopback: the no-connect check goes first.
        expect((await refusal(fetcher().checkUrl(location))).code).to.equal('address_blocked');
        server.route('/bounce', redirectTo(location, 302));
        const helloBefore = server.hits('/hello');
        const err = await refusal(fetcher().request(`${server.url}/bounce`, GET));
        expect(err.code).to.equal('address_blocked');
        expect(err.url).to.equal(new URL(location).href);
        expect(err.redirects).to.deep.equal([new URL(location).href]);
        expect(server.hits('/hello')).to.equal(helloBefore);
      });
    }

    it('refuses a redirect to plain http', async () => {
      server.route('/downgrade', redirectTo(`http://localhost:${server.port}/hello`));
      expect((await refusal(fetcher().request(`${server.url}/downgrade`, GET))).code).to.equal('scheme_not_allowed');
    });

    it('turns a POST into a GET on 303 and drops credentials when the origin changes', async () => {
      server.route('/submit', redirectTo(`https://127.0.0.1:${server.port}/echo`, 303));
      const client = fetcher({ allowedHosts: ['localhost', '127.0.0.1'] });
      const res = await client.request(`${server.url}/submit`, {
        ...GET,
        method: 'POST',
        body: 'payload',
        headers: { authorization: 'Bearer secret' },
      });
      const seen = JSON.parse(res.body.toString()) as { method: string; body: string; headers: Record<string, string> };
      expect(seen.method).to.equal('GET');
      expect(seen.body).to.equal('');
      expect(seen.headers).to.not.have.property('authorization');
    });
  });

  describe('redirects of other methods', () => {
    it('repeats a PUT and its body on 307 and 308, and on 301 and 302 (only POST becomes a GET there)', async () => {
      for (const status of [301, 302, 307, 308]) {
        server.route(`/moved-${status}`, redirectTo('/echo', status));
        const res = await fetcher().request(`${server.url}/moved-${status}`, {
          ...GET,
          method: 'PUT',
          headers: { 'content-type': 'text/plain' },
          body: 'v2',
        });
        expect(JSON.parse(res.body.toString()), String(status)).to.include({ method: 'PUT', body: 'v2' });
      }
    });

    it('turns a PATCH or DELETE into a GET on 303, without the body', async () => {
      server.route('/see-other', redirectTo('/echo', 303));
      for (const method of ['PATCH', 'DELETE'] as const) {
        const res = await fetcher().request(`${server.url}/see-other`, {
          ...GET,
          method,
          headers: { 'content-type': 'text/plain' },
          body: 'x',
        });
        const seen = JSON.parse(res.body.toString()) as {
          method: string;
          body: string;
          headers: Record<string, string>;
        };
        expect(seen).to.include({ method: 'GET', body: '' });
        expect(seen.headers).to.not.have.property('content-type');
      }
    });

    it('refuses a PUT redirected to a private address at that hop, before connecting', async () => {
      server.route('/put-bounce', redirectTo(`https://127.0.0.1:${server.port}/echo`, 307));
      const echoes = server.hits('/echo');
      const err = await refusal(
        fetcher().request(`${server.url}/put-bounce`, { ...GET, method: 'PUT', body: 'secret' }),
      );
      expect(err.code).to.equal('address_blocked');
      expect(server.hits('/echo')).to.equal(echoes);
    });
  });

  describe('timeouts', () => {
    it('times out on a server that never answers', async () => {
      server.route('/silent', neverAnswer());
      // GET's own timeout is far longer than the test's: only the 300 ms given here can end it in time.
      const started = Date.now();
      const err = await refusal(fetcher().request(`${server.url}/silent`, { ...GET, timeoutMs: 300 }));
      expect(err.code).to.equal('timeout');
      expect(Date.now() - started).to.be.at.least(250);
    });

    it('counts the body in the timeout', async () => {
      // The rest of the body never comes within the test: only the 300 ms can end the read.
      server.route('/trickle', answerSlowly('0123456789', 3_600_000));
      const err = await refusal(fetcher().request(`${server.url}/trickle`, { ...GET, timeoutMs: 300 }));
      expect(err.code).to.equal('timeout');
    });

    it('counts DNS in the timeout', async () => {
      const lookup = () => new Promise<never>(() => undefined);
      const err = await refusal(fetcher({ lookup }).request(`${server.url}/hello`, { ...GET, timeoutMs: 200 }));
      expect(err.code).to.equal('timeout');
    });
  });
});
