import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { loadCatalog } from '../../src/modules/catalog/catalog.ts';
import { judgePrintFile } from '../../src/modules/print-files/print-file-rules.ts';
import { samplePdf, SampleFiles } from '../../src/modules/print-files/sample-files.ts';
import { describeEachBackend, USER_AGENT } from '../helpers/test-service.ts';
import { waitFor } from '../helpers/wait.ts';
import { placeOrder, RECIPIENT } from '../orders/orders-helpers.ts';

const MM = 72 / 25.4;

/** The numbers of a PDF box (`/MediaBox [0 0 w h]`). */
function box(pdf: Buffer, name: string): number[] {
  const m = new RegExp(`/${name} \\[([^\\]]+)\\]`).exec(pdf.toString('latin1'));
  expect(m, name).to.not.equal(null);
  return m![1]!.trim().split(/\s+/).map(Number);
}

describe('sample print files (unit)', () => {
  it('is a well-formed PDF: every xref offset points at its object, startxref at the xref', () => {
    const pdf = samplePdf({ width: 85, height: 55 }, 2, 'Sample (business card)');
    const text = pdf.toString('latin1');
    expect(text.startsWith('%PDF-1.4\n')).to.equal(true);
    expect(text.trimEnd().endsWith('%%EOF')).to.equal(true);
    const startxref = Number(/startxref\n(\d+)\n/.exec(text)![1]);
    expect(text.slice(startxref, startxref + 4)).to.equal('xref');
    const entries = text
      .slice(startxref)
      .split('\n')
      .slice(3)
      .filter((l) => / 00000 n $/.test(l));
    expect(entries).to.have.length(6);
    entries.forEach((entry, i) =>
      expect(text.slice(Number(entry.slice(0, 10)), Number(entry.slice(0, 10)) + 8)).to.equal(`${i + 1} 0 obj\n`),
    );
    const length = Number(/\/Length (\d+) >>\nstream\n/.exec(text)![1]);
    const streamStart = text.indexOf('stream\n') + 'stream\n'.length;
    expect(text.slice(streamStart + length, streamStart + length + 10)).to.equal('\nendstream');
  });

  it('has the trim size with the bleed on every side as its page, the trim size as its TrimBox', () => {
    const pdf = samplePdf({ width: 420, height: 594 }, 3, 'A2 poster');
    const [, , w, h] = box(pdf, 'MediaBox');
    expect(w! / MM).to.be.closeTo(426, 0.01);
    expect(h! / MM).to.be.closeTo(600, 0.01);
    const [x0, y0, x1, y1] = box(pdf, 'TrimBox');
    expect((x1! - x0!) / MM).to.be.closeTo(420, 0.01);
    expect((y1! - y0!) / MM).to.be.closeTo(594, 0.01);
    expect(x0! / MM).to.be.closeTo(3, 0.01);
  });

  it('lists one sample per format of every product, each judged a print-ready PDF', async () => {
    const catalog = loadCatalog();
    const samples = new SampleFiles({ catalog, origin: () => 'https://print.example' });
    for (const product of catalog.products) {
      const list = samples.list(product);
      const sizes = product.fileRequirements.trimSizeMmByOption?.values;
      expect(list.map((s) => s.format)).to.deep.equal(sizes ? Object.keys(sizes) : ['standard']);
      for (const sample of list) {
        expect(sample.url).to.equal(
          `https://print.example/api/reseller/v1/sample-files/${product.id}/${encodeURIComponent(sample.format)}.pdf`,
        );
        const bytes = samples.resolve(sample.url)!;
        expect(await judgePrintFile(bytes, new URL(sample.url).pathname)).to.deep.equal({
          ok: true,
          fileType: 'pdf',
          needsConversion: false,
        });
        const [, , w, h] = box(bytes, 'MediaBox');
        expect(w! / MM).to.be.closeTo(sample.pageSizeMm.width, 0.01);
        expect(h! / MM).to.be.closeTo(sample.pageSizeMm.height, 0.01);
      }
    }
  });

  it('recognises only its own paths on its own host (or loopback)', () => {
    const samples = new SampleFiles({ catalog: loadCatalog(), origin: () => 'https://print.example' });
    expect(samples.isSampleUrl('https://print.example/api/reseller/v1/sample-files/posters/a2.pdf')).to.equal(true);
    expect(samples.isSampleUrl('http://127.0.0.1:3000/api/reseller/v1/sample-files/posters/a2.pdf')).to.equal(true);
    expect(samples.isSampleUrl('https://files.example/api/reseller/v1/sample-files/posters/a2.pdf')).to.equal(false);
    expect(samples.isSampleUrl('https://print.example/api/reseller/v1/sample-files/posters/b7.pdf')).to.equal(false);
    expect(samples.isSampleUrl('https://print.example/api/reseller/v1/sample-files/nope/standard.pdf')).to.equal(false);
    expect(samples.isSampleUrl('https://print.example/api/reseller/v1/sample-files/posters/a2.pdf?x=1')).to.equal(
      false,
    );
    expect(samples.isSampleUrl('https://u:p@print.example/api/reseller/v1/sample-files/posters/a2.pdf')).to.equal(
      false,
    );
    expect(samples.isSampleUrl('https://print.example/api/reseller/v1/sample-files/posters/__proto__.pdf')).to.equal(
      false,
    );
    expect(
      samples.isSampleUrl('https://print.example/api/reseller/v1/sample-files/business-cards/standard.pdf'),
    ).to.equal(true);
  });
});

// No host is exempt from the address guard here: the sample files must work without one.
describeEachBackend(
  'a sandbox order with a sample print file',
  (get) => {
    it('lists sample files in GET /products/{id} for a test key only, and serves them without a key', async () => {
      const t = get();
      const test = await t.reseller({ mode: 'test' });
      const live = await t.reseller({ mode: 'live' });
      const forTest = (await t.api(test.key, 'GET', '/products/posters?lang=en')).body.data;
      expect(forTest.sampleFiles.map((s: { format: string }) => s.format)).to.deep.equal(['a3', 'a2', 'a1', 'a0']);
      expect(forTest.sampleFiles[1]).to.deep.include({
        format: 'a2',
        trimSizeMm: { width: 420, height: 594 },
        bleedMm: 3,
        pageSizeMm: { width: 426, height: 600 },
      });
      expect((await t.api(live.key, 'GET', '/products/posters?lang=en')).body.data).to.not.have.property('sampleFiles');
      const url = forTest.sampleFiles[1].url as string;
      expect(url).to.equal(`${t.baseUrl}/api/reseller/v1/sample-files/posters/a2.pdf`);
      const res = await fetch(url, { headers: { 'user-agent': USER_AGENT } });
      expect(res.status).to.equal(200);
      expect(res.headers.get('content-type')).to.equal('application/pdf');
      expect(
        Buffer.from(await res.arrayBuffer())
          .subarray(0, 5)
          .toString(),
      ).to.equal('%PDF-');
      expect(
        (
          await fetch(`${t.baseUrl}/api/reseller/v1/sample-files/posters/b9.pdf`, {
            headers: { 'user-agent': USER_AGENT },
          })
        ).status,
      ).to.equal(404);
    });

    it('runs a test-mode order with a sample file from SUBMITTED to DELIVERED, nothing fetched', async () => {
      const t = get();
      const test = await t.reseller({ mode: 'test' });
      const product = (await t.api(test.key, 'GET', '/products/business-cards')).body.data;
      const fileUrl = product.sampleFiles[0].url as string;
      const placed = await placeOrder(t, test.key, {
        lines: [{ productId: 'business-cards', quantity: 250, fileUrl }],
        recipient: RECIPIENT,
      });
      expect(placed.status, JSON.stringify(placed.body)).to.equal(201);
      expect(placed.body.data).to.include({ state: 'SUBMITTED', testMode: true });
      expect(placed.body.data.lines[0]).to.include({ fileUrl, fileStatus: 'ok' });
      const delivered = await waitFor(
        'the sandbox order to be DELIVERED',
        async () => {
          const order = (await t.api(test.key, 'GET', `/orders/${placed.body.data.id}`)).body.data;
          return order.status === 'DELIVERED' ? order : undefined;
        },
        30_000,
      );
      expect(delivered.tracking.carrier).to.equal('PostNL');
    });

    it('refuses a sample file for a live key, and still blocks private addresses for a test key', async () => {
      const t = get();
      const live = await t.reseller({ mode: 'live' });
      const test = await t.reseller({ mode: 'test' });
      const sample = `${t.baseUrl}/api/reseller/v1/sample-files/business-cards/standard.pdf`;
      const refused = await placeOrder(t, live.key, {
        lines: [{ productId: 'business-cards', quantity: 250, fileUrl: sample }],
        recipient: RECIPIENT,
      });
      expect(refused.status).to.equal(422);
      expect(refused.body.error.code).to.equal('invalid_file_url');
      expect(refused.body.error.details[0].message).to.contain('only test (prk_test_) keys');
      for (const fileUrl of [
        'https://127.0.0.1:9/art.pdf',
        'https://10.0.0.7/api/reseller/v1/sample-files/business-cards/standard.pdf',
      ]) {
        const blocked = await placeOrder(t, test.key, {
          lines: [{ productId: 'business-cards', quantity: 250, fileUrl }],
          recipient: RECIPIENT,
        });
        expect(blocked.status, fileUrl).to.equal(422);
        expect(blocked.body.error.details[0].message, fileUrl).to.contain('private or reserved network address');
      }
    });

    it('lets a test key give a sample file as a reseller product default file', async () => {
      const t = get();
      const test = await t.reseller({ mode: 'test' });
      const fileUrl = `${t.baseUrl}/api/reseller/v1/sample-files/business-cards/standard.pdf`;
      const created = await t.api(test.key, 'POST', '/reseller-products', {
        sku: `BC-${randomUUID().slice(0, 6)}`,
        title: 'Cards',
        productId: 'business-cards',
        fileUrl,
      });
      expect(created.status, JSON.stringify(created.body)).to.equal(201);
    });

    it('answers a non-https fileUrl with 422 invalid_file_url wherever a file URL is given', async () => {
      const t = get();
      const test = await t.reseller({ mode: 'test' });
      for (const fileUrl of ['http://files.example/art.pdf', 'ftp://files.example/art.pdf']) {
        const placed = await placeOrder(t, test.key, {
          lines: [{ productId: 'business-cards', quantity: 250, fileUrl }],
          recipient: RECIPIENT,
        });
        expect(placed.status, fileUrl).to.equal(422);
        expect(placed.body.error.code).to.equal('invalid_file_url');
        expect(placed.body.error.details[0]).to.deep.include({
          line: 0,
          field: 'fileUrl',
          code: 'invalid_file_url',
          message: 'the file URL must be an https URL',
        });
      }
      const product = await t.api(test.key, 'POST', '/reseller-products', {
        sku: `BC-${randomUUID().slice(0, 6)}`,
        title: 'Cards',
        productId: 'business-cards',
        fileUrl: 'http://files.example/art.pdf',
      });
      expect(product.status).to.equal(422);
      expect(product.body.error.code).to.equal('invalid_file_url');
      const waiting = await placeOrder(t, test.key, {
        lines: [{ productId: 'business-cards', quantity: 250 }],
        recipient: RECIPIENT,
      });
      expect(waiting.body.data.state).to.equal('AWAITING_FILE');
      const replaced = await t.api(test.key, 'PUT', `/orders/${waiting.body.data.id}/lines/0/file`, {
        fileUrl: 'http://files.example/art.pdf',
      });
      expect(replaced.status).to.equal(422);
      expect(replaced.body.error.code).to.equal('invalid_file_url');
      const malformed = await placeOrder(t, test.key, {
        lines: [{ productId: 'business-cards', quantity: 250, fileUrl: 'not a url' }],
        recipient: RECIPIENT,
      });
      expect(malformed.status).to.equal(400);
      expect(malformed.body.error.code).to.equal('invalid_request');
    });
  },
  { OUTBOUND_ALLOWED_HOSTS: '', PRODUCTION_SIMULATOR_STEP_MS: '50' },
);
