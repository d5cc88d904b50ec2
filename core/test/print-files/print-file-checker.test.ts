import { expect } from 'chai';
import { createSafeFetch } from '../../src/infra/safe-fetch/safe-fetch.ts';
import { PrintFileChecker } from '../../src/modules/print-files/print-file-checker.ts';
import { FILES, serve, startHttpsServer, type TestHttpsServer } from '../helpers/https-server.ts';

describe('print-file checks (real local HTTPS server)', function () {
  let server: TestHttpsServer;
  let checker: PrintFileChecker;

  before(async () => {
    server = await startHttpsServer();
    checker = new PrintFileChecker({ safeFetch: createSafeFetch({ allowedHosts: ['localhost'], userAgent: 'print-api-test', ca: [server.ca] }), timeoutMs: 500 });
    server.route('/flyer.pdf', serve(FILES.pdf, 'application/pdf'));
    server.route('/poster.png', serve(FILES.png, 'image/png'));
    server.route('/card.jpg', serve(FILES.jpg, 'image/jpeg'));
    server.route('/download', serve(FILES.pdf, 'application/octet-stream'));
    server.route('/fake.pdf', serve(FILES.html, 'text/html'));
    server.route('/favicon.ico', serve(FILES.ico, 'image/x-icon'));
    server.route('/logo.svg', serve(FILES.svg, 'image/svg+xml'));
    server.route('/logo-svg.pdf', serve(FILES.svg, 'application/pdf'));
    server.route('/art.eps', serve(FILES.eps, 'application/postscript'));
    server.route('/art-eps-as.svg', serve(FILES.eps, 'image/svg+xml'));
    server.route('/archive.pdf', serve(FILES.zip, 'application/pdf'));
    server.route('/missing.pdf', serve('gone', 'text/plain', 404));
    server.route('/slow.pdf', async (_req, res) => {
      await new Promise((r) => setTimeout(r, 1500));
      res.end(FILES.pdf);
    });
    server.route('/r1', (_req, res) => void res.writeHead(301, { location: '/r2' }).end());
    server.route('/r2', (_req, res) => void res.writeHead(302, { location: '/flyer.pdf' }).end());
    server.route('/to-loopback.pdf', (_req, res) => void res.writeHead(302, { location: `https://127.0.0.1:${server.port}/flyer.pdf` }).end());
    server.route('/to-private.pdf', (_req, res) => void res.writeHead(302, { location: 'https://192.168.1.20/flyer.pdf' }).end());
  });
  after(() => server.close());

  const ok = async (path: string, fileType: string, needsConversion: boolean) => {
    const result = await checker.check(`${server.url}${path}`);
    expect(result, JSON.stringify(result)).to.deep.include({ ok: true, fileType, needsConversion });
  };
  const refused = async (path: string, reason: RegExp) => {
    const result = await checker.check(`${server.url}${path}`);
    expect(result.ok).to.equal(false);
    if (!result.ok) expect(result.reason).to.match(reason);
  };

  it('accepts a PDF', () => ok('/flyer.pdf', 'pdf', false));
  it('accepts a PNG', () => ok('/poster.png', 'png', false));
  it('accepts a JPG', () => ok('/card.jpg', 'jpg', false));
  it('judges by the bytes, not the URL or content type', () => ok('/download', 'pdf', false));
  it('refuses an HTML page named .pdf', () => refused('/fake.pdf', /HTML page/));
  it('refuses an icon', () => refused('/favicon.ico', /icon/));
  it('refuses a zip named .pdf', () => refused('/archive.pdf', /ZIP/));
  it('accepts an SVG by its extension, for conversion', () => ok('/logo.svg', 'svg', true));
  it('accepts an EPS by its extension, for conversion', () => ok('/art.eps', 'eps', true));
  it('refuses SVG content behind a .pdf URL', () => refused('/logo-svg.pdf', /SVG image behind a URL ending in \.pdf/));
  it('refuses EPS content behind a .svg URL', () => refused('/art-eps-as.svg', /PostScript/));
  it('follows a redirect chain', () => ok('/r1', 'pdf', false));
  it('reports a 404', () => refused('/missing.pdf', /HTTP 404/));
  it('times out a slow server', () => refused('/slow.pdf', /within 0.5 s/));
  it('refuses a redirect to loopback', () => refused('/to-loopback.pdf', /127\.0\.0\.1.*private or reserved/));
  it('refuses a redirect to a private address', () => refused('/to-private.pdf', /192\.168\.1\.20/));
  it('refuses a plain http URL', async () => {
    const result = await checker.check(`http://localhost:${server.port}/flyer.pdf`);
    expect(result.ok).to.equal(false);
  });

  it('fetches identical URLs once', async () => {
    const before = server.requests.filter((r) => r.path === '/card.jpg').length;
    const url = `${server.url}/card.jpg`;
    const results = await checker.checkMany([url, url, url, `${server.url}/poster.png`]);
    expect(results.size).to.equal(2);
    expect(server.requests.filter((r) => r.path === '/card.jpg').length - before).to.equal(1);
  });
});
