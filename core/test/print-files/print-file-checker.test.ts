import { expect } from 'chai';
import { createSafeFetch, type SafeFetchClient } from '../../src/infra/safe-fetch/safe-fetch.ts';
import { PrintFileChecker, type PrintFileCheck } from '../../src/modules/print-files/print-file-checker.ts';
import { neverAnswer, redirectTo, sendBytes, startHttpsServer, type TestHttpsServer } from '../helpers/https-server.ts';
import { tinyEps, tinyHtml, tinyIco, tinyJpeg, tinyPdf, tinyPng, tinySvg } from './print-file-fixtures.ts';

describe('PrintFileChecker against a real local HTTPS server', () => {
  let server: TestHttpsServer;
  let checker: PrintFileChecker;
  let safeFetch: SafeFetchClient;
  const reasonOf = (check: PrintFileCheck): string => {
    expect(check.ok).to.equal(false);
    return (check as { reason: string }).reason;
  };

  before(async () => {
    server = await startHttpsServer();
    // Only the test server's own name is exempt; 127.0.0.1 spelled out is not.
    safeFetch = createSafeFetch({ allowedHosts: ['localhost'], ca: [server.ca], userAgent: 'print-api-test/1' });
    // The service's own 5 s: a file server on a busy machine may take seconds to answer. Giving up is
    // tested on a server that never answers, with a checker of its own (below).
    checker = new PrintFileChecker({ safeFetch });
    // Content-Type headers lie on purpose: the bytes decide.
    server.route('/card.pdf', sendBytes(tinyPdf(), 'application/pdf'));
    server.route('/photo.png', sendBytes(tinyPng(), 'application/octet-stream'));
    server.route('/photo.jpg', sendBytes(tinyJpeg(), 'image/jpeg'));
    server.route('/not-really.pdf', sendBytes(tinyHtml(), 'application/pdf'));
    server.route('/favicon.ico', sendBytes(tinyIco(), 'image/x-icon'));
    server.route('/logo.svg', sendBytes(tinySvg(), 'image/svg+xml'));
    server.route('/logo.eps', sendBytes(tinyEps(), 'application/postscript'));
    server.route('/vector.pdf', sendBytes(tinySvg(), 'application/pdf'));
    server.route('/short-link', redirectTo('/step-2', 301));
    server.route('/step-2', redirectTo(`${server.url}/card.pdf`, 302));
    server.route('/slow.pdf', neverAnswer());
  });
  after(() => server.close());

  it('accepts a PDF, a PNG and a JPEG as print-ready', async () => {
    for (const [path, fileType] of [
      ['/card.pdf', 'pdf'],
      ['/photo.png', 'png'],
      ['/photo.jpg', 'jpg'],
    ] as const) {
      const url = `${server.url}${path}`;
      expect(await checker.check(url)).to.deep.equal({ ok: true, url, fileType, needsConversion: false });
    }
  });

  it('refuses an HTML page named .pdf, naming what it is', async () => {
    expect(reasonOf(await checker.check(`${server.url}/not-really.pdf`))).to.equal(
      'the file is an HTML document, not a PDF, PNG or JPG',
    );
  });

  it('refuses an ICO file', async () => {
    expect(reasonOf(await checker.check(`${server.url}/favicon.ico`))).to.equal(
      'the file is an ICO icon, not a PDF, PNG or JPG',
    );
  });

  it('accepts an SVG and an EPS by extension, to be converted', async () => {
    expect(await checker.check(`${server.url}/logo.svg`)).to.include({
      ok: true,
      fileType: 'svg',
      needsConversion: true,
    });
    expect(await checker.check(`${server.url}/logo.eps`)).to.include({
      ok: true,
      fileType: 'eps',
      needsConversion: true,
    });
  });

  it('refuses SVG content at a .pdf URL', async () => {
    expect(reasonOf(await checker.check(`${server.url}/vector.pdf`))).to.equal(
      'the file is an SVG image, not a PDF, PNG or JPG; SVG files are accepted only when the URL ends in .svg',
    );
  });

  it('lets checks of one URL at the same moment share one read, and reads again for a later check', async () => {
    const url = `${server.url}/photo.jpg`;
    const before = server.hits('/photo.jpg');
    const together = await Promise.all(Array.from({ length: 5 }, () => checker.check(url)));
    expect(together.every((c) => c.ok)).to.equal(true);
    expect(server.hits('/photo.jpg') - before).to.equal(1);
    await checker.check(url);
    expect(server.hits('/photo.jpg') - before).to.equal(2);
  });

  it('follows a redirect chain to the file', async () => {
    const url = `${server.url}/short-link`;
    expect(await checker.check(url)).to.deep.equal({ ok: true, url, fileType: 'pdf', needsConversion: false });
  });

  it('reports a 404 with its status', async () => {
    expect(reasonOf(await checker.check(`${server.url}/missing.pdf`))).to.equal(
      'the file URL answered HTTP 404 Not Found',
    );
  });

  it('gives up on a server that never answers once its timeout has passed', async () => {
    // The server never answers, so nothing but the checker's own 0.4 s can end the check: it gives up
    // however busy the machine is (how long after is the scheduler's business, not the test's).
    const impatient = new PrintFileChecker({ safeFetch, timeoutMs: 400 });
    const started = Date.now();
    expect(reasonOf(await impatient.check(`${server.url}/slow.pdf`))).to.equal(
      'the file server did not answer within 0.4 s',
    );
    expect(Date.now() - started).to.be.at.least(400);
  });

  it('refuses plain http', async () => {
    expect(reasonOf(await checker.check(`http://localhost:${server.port}/card.pdf`))).to.equal(
      'the file URL must be an https URL',
    );
  });

  it('refuses a URL on a private address', async () => {
    expect(reasonOf(await checker.check(`https://127.0.0.1:${server.port}/card.pdf`))).to.equal(
      'the file URL points to a private or reserved network address (127.0.0.1); print files must be publicly reachable',
    );
  });

  for (const target of [
    'https://127.0.0.2:PORT/card.pdf',
    'https://10.0.0.1/card.pdf',
    'https://169.254.169.254/latest/meta-data/',
  ]) {
    it(`refuses a redirect to ${target.replace(':PORT', '')}`, async () => {
      const location = target.replace('PORT', String(server.port));
      // Never let a policy regression send a packet off loopback: the no-connect check goes first.
      await safeFetch.checkUrl(location).then(
        () => expect.fail(`${location} should be blocked`),
        () => undefined,
      );
      server.route('/redirect-inward.pdf', redirectTo(location));
      const hostBefore = server.connections();
      const reason = reasonOf(await checker.check(`${server.url}/redirect-inward.pdf`));
      expect(reason).to.equal(
        `the file URL redirects to ${location}, which points to a private or reserved network address (${new URL(location).hostname}); print files must be publicly reachable`,
      );
      expect(server.connections()).to.equal(hostBefore + 1); // the first hop only
    });
  }

  it('fetches each distinct URL once in checkMany and answers for every one', async () => {
    const pdf = `${server.url}/card.pdf`;
    const png = `${server.url}/photo.png`;
    const html = `${server.url}/not-really.pdf`;
    const [pdfBefore, pngBefore, htmlBefore] = [
      server.hits('/card.pdf'),
      server.hits('/photo.png'),
      server.hits('/not-really.pdf'),
    ];
    const results = await checker.checkMany([pdf, png, pdf, html, pdf, png]);
    expect([...results.keys()]).to.deep.equal([pdf, png, html]);
    expect(results.get(pdf)).to.include({ ok: true, fileType: 'pdf' });
    expect(results.get(png)).to.include({ ok: true, fileType: 'png' });
    expect(results.get(html)).to.include({ ok: false });
    expect([
      server.hits('/card.pdf') - pdfBefore,
      server.hits('/photo.png') - pngBefore,
      server.hits('/not-really.pdf') - htmlBefore,
    ]).to.deep.equal([1, 1, 1]);
  });

  it('runs at most 4 fetches at a time in checkMany', async () => {
    // The server holds every answer until four fetches are in flight (then a moment longer, in which a
    // fifth would show), or until the last of the ten has come: a full batch is always seen whole, however
    // slowly a busy machine sends it. Only the moment is timed, and it can only make a fifth fetch go unseen.
    let inFlight = 0;
    let peak = 0;
    let arrived = 0;
    const held: Array<() => void> = [];
    const answerAll = () => {
      for (const answer of held.splice(0)) answer();
    };
    for (let i = 0; i < 10; i++) {
      server.route(`/batch/${i}.pdf`, (_req, res) => {
        arrived++;
        peak = Math.max(peak, ++inFlight);
        held.push(() => {
          inFlight--;
          res.writeHead(200).end(tinyPdf());
        });
        if (inFlight === 4) setTimeout(answerAll, 100);
        else if (arrived === 10) answerAll();
      });
    }
    const urls = Array.from({ length: 10 }, (_, i) => `${server.url}/batch/${i}.pdf`);
    const results = await checker.checkMany(urls);
    expect([...results.values()].every((r) => r.ok)).to.equal(true);
    expect(peak).to.equal(4);
  });
});
