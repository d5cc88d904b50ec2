import { expect } from 'chai';
import client from 'prom-client';
import type { HttpClient } from '@print-api/connector-kit';
import { createSafeFetch, SafeFetchError } from '../../src/infra/safe-fetch/safe-fetch.ts';
import { connectorHttpClients, refusedPrivateHost } from '../../src/modules/stores/outbound/connector-http.ts';
import { connectorFailure as failure } from '../helpers/connector-failure.ts';
import { redirectTo, sendBytes, startHttpsServer, type TestHttpsServer } from '../helpers/https-server.ts';
import { tinyHtml, tinyJpeg, tinyPdf, tinyPng } from '../print-files/print-file-fixtures.ts';

const IMAGES = ['image/jpeg', 'image/png', 'image/gif'];

/** Files a connector sends (a multipart body) and fetches (a merchant's image) through the same guarded client. */
describe('the connector HTTP client sends and downloads files (on SafeFetch)', () => {
  let server: TestHttpsServer;
  let registry: client.Registry;
  let logs: Array<Record<string, unknown>>;
  let http: HttpClient;
  let received: Array<{ headers: Record<string, unknown>; body: Buffer }>;

  const counted = async (labels: Record<string, string>): Promise<number> =>
    (await registry.getSingleMetric('connector_http_requests_total')!.get()).values
      .filter((v) => Object.entries(labels).every(([k, value]) => v.labels[k] === value))
      .reduce((sum, v) => sum + v.value, 0);

  before(async () => {
    server = await startHttpsServer();
    server.route('/upload', (req, res, body) => {
      received.push({ headers: req.headers, body });
      res.writeHead(201, { 'content-type': 'application/json' }).end('{"listing_image_id":1}');
    });
    server.route('/mockups/tulips-front.jpg', sendBytes(tinyJpeg(), 'image/jpeg'));
    // A host's Content-Type is not trusted: the bytes say what the file is.
    server.route('/mockups/poster.jpg', sendBytes(tinyPng(), 'image/jpeg'));
    server.route('/mockups/cdn', redirectTo('/mockups/tulips-front.jpg', 302));
    server.route('/mockups/to-metadata', redirectTo('https://169.254.169.254/latest/meta-data/iam', 302));
    server.route('/mockups/to-loopback', redirectTo('https://127.0.0.1:1/secret.png', 307));
    server.route('/mockups/page.jpg', sendBytes(tinyHtml(), 'image/jpeg'));
    server.route('/mockups/flyer.pdf', sendBytes(tinyPdf(), 'application/pdf'));
    server.route('/mockups/gone.jpg', sendBytes('not found', 'text/plain', 404));
    server.route('/mockups/huge.jpg', sendBytes(Buffer.concat([tinyJpeg(), Buffer.alloc(64 * 1024)]), 'image/jpeg'));
  });
  beforeEach(() => {
    received = [];
    logs = [];
    registry = new client.Registry();
    http = connectorHttpClients({
      safeFetch: createSafeFetch({ allowedHosts: ['localhost'], ca: [server.ca], userAgent: 'test' }),
      metrics: {
        counter: <L extends string>(name: string, help: string, labelNames: L[]) =>
          new client.Counter<L>({ name, help, labelNames, registers: [registry] }),
        histogram: <L extends string>(name: string, help: string, labelNames: L[], buckets: number[]) =>
          new client.Histogram<L>({ name, help, labelNames, buckets, registers: [registry] }),
      },
      logger: { debug: (_message, meta = {}) => void logs.push(meta) },
    })('ETSY');
  });
  after(() => server.close());

  describe('a multipart/form-data body', () => {
    it("is encoded by the platform's FormData: text fields and a file with its name and type, the bytes exact, the connector's content-type replaced by the boundary's", async () => {
      const jpeg = tinyJpeg();
      const res = await http.request({
        method: 'POST',
        url: `${server.url}/upload?token=secret`,
        headers: { authorization: 'Bearer abc', 'Content-Type': 'application/json' },
        multipart: [
          { name: 'image', file: { bytes: jpeg, filename: 'tulips "front".jpg', contentType: 'image/jpeg' } },
          { name: 'rank', value: '1' },
          { name: 'alt_text', value: 'Tulips – A2 poster' },
        ],
        operation: 'uploadListingImage',
      });
      expect(res.status).to.equal(201);
      const [seen] = received;
      const contentType = String(seen!.headers['content-type']);
      expect(contentType).to.match(/^multipart\/form-data; boundary=/);
      expect(seen!.headers).to.include({ authorization: 'Bearer abc', 'content-length': String(seen!.body.length) });
      const form = await new Response(seen!.body, { headers: { 'content-type': contentType } }).formData();
      const image = form.get('image') as File;
      expect([image.name, image.type]).to.deep.equal(['tulips "front".jpg', 'image/jpeg']);
      expect(Buffer.from(await image.arrayBuffer()).equals(jpeg)).to.equal(true);
      expect([form.get('rank'), form.get('alt_text')]).to.deep.equal(['1', 'Tulips – A2 poster']);
      // Counted and logged like any call: its operation, never its body or query.
      expect(await counted({ platform: 'ETSY', operation: 'uploadListingImage', status: '201' })).to.equal(1);
      expect(logs.at(-1)).to.include({ method: 'POST', path: '/upload', status: '201' });
      expect(JSON.stringify(logs)).to.not.contain('secret').and.not.contain('Tulips');
    });

    it('goes through the guard: refused for a private address before any connection', async () => {
      const err = await failure(
        http.request({
          method: 'POST',
          url: 'https://10.0.0.1/upload',
          multipart: [{ name: 'image', file: { bytes: tinyJpeg(), filename: 'a.jpg', contentType: 'image/jpeg' } }],
        }),
      );
      expect(err.kind).to.equal('invalid_payload');
      expect(refusedPrivateHost(err)).to.equal('10.0.0.1');
    });

    it('is refused together with a text body (one body per request)', async () => {
      const err = await http
        .request({ method: 'POST', url: `${server.url}/upload`, body: '{}', multipart: [{ name: 'rank', value: '1' }] })
        .then(
          () => null,
          (e: unknown) => e as Error,
        );
      expect(err?.message).to.equal('POST /upload: a body or a multipart body, not both');
      expect(received).to.deep.equal([]);
    });
  });

  describe("a download (a merchant's image URL)", () => {
    it("answers the file's bytes, the type its bytes are and a file name from the URL with that type's extension, following a redirect", async () => {
      for (const path of ['/mockups/tulips-front.jpg', '/mockups/cdn']) {
        const file = await http.download({ url: `${server.url}${path}?v=2`, maxBytes: 1024, accept: IMAGES });
        expect(Buffer.from(file.bytes).equals(tinyJpeg())).to.equal(true);
        expect(file.contentType).to.equal('image/jpeg');
        expect(file.filename).to.equal(path === '/mockups/cdn' ? 'cdn.jpg' : 'tulips-front.jpg');
      }
      const png = await http.download({ url: `${server.url}/mockups/poster.jpg`, maxBytes: 1024, accept: IMAGES });
      expect([png.contentType, png.filename]).to.deep.equal(['image/png', 'poster.png']);
      expect(await counted({ platform: 'ETSY', operation: 'download', status: '200' })).to.equal(3);
    });

    for (const [where, path, hop, target] of [
      ['the metadata service', '/mockups/to-metadata', '169.254.169.254', '/latest/meta-data/iam'],
      ['a loopback address', '/mockups/to-loopback', '127.0.0.1:1', '/secret.png'],
    ] as const) {
      it(`refuses a redirect to ${where} (invalid_payload caused by address_blocked), naming the hop and no address`, async () => {
        const err = await failure(
          http.download({ url: `${server.url}${path}?sig=s3cr3t`, maxBytes: 1024, accept: IMAGES }),
        );
        expect(err.kind).to.equal('invalid_payload');
        expect((err.cause as SafeFetchError).code).to.equal('address_blocked');
        expect(err.message).to.equal(
          `The file at ${server.url}${path} (redirected to https://${hop}${target}): ${hop} is not a public internet address`,
        );
        expect(err.message).to.not.contain('s3cr3t');
        expect(refusedPrivateHost(err)).to.equal(hop);
        expect(await counted({ platform: 'ETSY', operation: 'download', status: 'refused' })).to.equal(1);
      });
    }

    it('refuses a private address and plain http before connecting', async () => {
      const blocked = await failure(
        http.download({ url: 'https://192.168.1.10/tulips.jpg', maxBytes: 1024, accept: IMAGES }),
      );
      expect(blocked.message).to.equal(
        'The file at https://192.168.1.10/tulips.jpg: 192.168.1.10 is not a public internet address',
      );
      const plain = await failure(
        http.download({ url: 'http://example.com/tulips.jpg', maxBytes: 1024, accept: IMAGES }),
      );
      expect(plain).to.include({
        kind: 'invalid_payload',
        message: 'The file at http://example.com/tulips.jpg: only https addresses can be downloaded',
      });
    });

    it('refuses what is not an accepted type by its bytes (an HTML page named .jpg, a PDF), a missing file and one over the cap', async () => {
      const refused = async (path: string, maxBytes = 4096) =>
        (await failure(http.download({ url: `${server.url}${path}`, maxBytes, accept: IMAGES }))).message;
      expect(await refused('/mockups/page.jpg')).to.equal(
        `The file at ${server.url}/mockups/page.jpg is of a type its bytes do not tell, not one of image/jpeg, image/png, image/gif`,
      );
      expect(await refused('/mockups/flyer.pdf')).to.equal(
        `The file at ${server.url}/mockups/flyer.pdf is application/pdf, not one of image/jpeg, image/png, image/gif`,
      );
      expect(await refused('/mockups/gone.jpg')).to.equal(
        `The file at ${server.url}/mockups/gone.jpg could not be downloaded: its server answered 404`,
      );
      expect(await refused('/mockups/huge.jpg', 4096)).to.equal(
        `The file at ${server.url}/mockups/huge.jpg is larger than 4096 bytes`,
      );
    });
  });
});
