import { expect } from 'chai';
import { SafeFetchError, type SafeFetch } from '../../src/infra/safe-fetch/safe-fetch.ts';
import { PrintFileChecker } from '../../src/modules/print-files/print-file-checker.ts';

/** A SafeFetch that always fails the same way: the checker's wording is what is under test. */
const failing = (err: SafeFetchError): SafeFetch => ({ request: () => Promise.reject(err) });

describe('PrintFileChecker wording of fetch failures', () => {
  const cases: Array<[string, string, SafeFetchError, string]> = [
    [
      'a URL that does not parse',
      'not a url',
      new SafeFetchError('invalid_url', 'x', { url: 'not a url' }),
      'the file URL is not a valid URL',
    ],
    [
      'a URL with credentials',
      'https://u:p@files.example/a.pdf',
      new SafeFetchError('invalid_url', 'x', { url: 'https://files.example' }),
      'the file URL must not contain a user name or password',
    ],
    [
      'an unknown host',
      'https://nowhere.example/a.pdf',
      new SafeFetchError('dns_failed', 'x', { url: 'https://nowhere.example/a.pdf' }),
      'the file host nowhere.example could not be found (DNS lookup failed)',
    ],
    [
      'a host that resolves privately',
      'https://intranet.example/a.pdf',
      new SafeFetchError('address_blocked', 'x', { url: 'https://intranet.example/a.pdf', address: '10.1.2.3' }),
      'the file URL points to a private or reserved network address (intranet.example → 10.1.2.3); print files must be publicly reachable',
    ],
    [
      'a redirect to http',
      'https://files.example/a.pdf',
      new SafeFetchError('scheme_not_allowed', 'x', {
        url: 'http://files.example/a.pdf',
        redirects: ['http://files.example/a.pdf'],
      }),
      'the file URL redirects to http://files.example/a.pdf, which is not https',
    ],
    [
      'a redirect loop',
      'https://files.example/a.pdf',
      new SafeFetchError('too_many_redirects', 'x', { url: 'https://files.example/a.pdf' }),
      'the file URL redirects more than 5 times',
    ],
    [
      'a refused connection',
      'https://files.example/a.pdf',
      new SafeFetchError('connection_failed', 'x', { url: 'https://files.example/a.pdf' }),
      'the file server files.example could not be reached',
    ],
    [
      'a bad certificate',
      'https://files.example/a.pdf',
      new SafeFetchError('tls_failed', 'x', { url: 'https://files.example/a.pdf' }),
      'the file server files.example does not have a valid HTTPS certificate',
    ],
  ];
  for (const [what, url, err, reason] of cases) {
    it(`explains ${what}`, async () => {
      expect(await new PrintFileChecker({ safeFetch: failing(err) }).check(url)).to.deep.equal({
        ok: false,
        url,
        reason,
      });
    });
  }

  it('lets unexpected errors through instead of blaming the file', async () => {
    const broken: SafeFetch = { request: () => Promise.reject(new TypeError('bug')) };
    let caught: unknown;
    await new PrintFileChecker({ safeFetch: broken })
      .check('https://files.example/a.pdf')
      .catch((err: unknown) => (caught = err));
    expect(caught).to.be.instanceOf(TypeError);
  });
});
