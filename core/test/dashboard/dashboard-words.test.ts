import { expect } from 'chai';
import express from 'express';
import type { AddressInfo } from 'node:net';
import { Refusal } from '../../src/kernel/refusal.ts';
import { asServiceUnavailable } from '../../src/http/service-unavailable.ts';
import { dashboardErrorPage } from '../../src/modules/dashboard/dashboard-error-page.ts';
import { refusal } from '../../src/modules/dashboard/pages/parts.ts';
import { fieldPhrase, merchantMessage, parsePrice, plainText } from '../../src/modules/dashboard/pages/words.ts';
import { invalidRequest } from '../../src/web/validation.ts';
import { z } from 'zod';

/** Issue 37's words: what the dashboard's pages say when the API refuses, and the prices they read. */
describe("the dashboard in a merchant's words", () => {
  it('names fields as a merchant does: lines from 1, no brackets or camel case', () => {
    expect(fieldPhrase('lines[0].quantity')).to.equal('Line 1: quantity');
    expect(fieldPhrase('lines[2].options.sheetFormat')).to.equal('Line 3: Options: sheet format');
    expect(fieldPhrase('recipient.postalCode')).to.equal('Recipient: postal code');
    expect(fieldPhrase('lines[1]')).to.equal('Line 2');
    expect(fieldPhrase('fileUrl')).to.equal('Artwork URL');
  });

  it('says every problem of a refused form as a sentence: no "lines[0]", no "(and 2 more problems, in details)"', () => {
    const schema = z.object({
      lines: z.array(z.object({ quantity: z.number().int().min(1), sku: z.string().min(1) })),
    });
    const parsed = schema.safeParse({
      lines: [
        { quantity: 0, sku: '' },
        { quantity: 1.5, sku: 'A' },
      ],
    });
    const err = invalidRequest(parsed.error!.issues, 'body');
    expect(err.message).to.match(/lines\[0\]\.quantity.*in details/);
    const r = refusal(err);
    expect(r.message).to.equal(
      'Line 1: quantity must be at least 1. Line 1: SKU must not be empty. Line 2: quantity must be a whole number.',
    );
    expect(r.message).not.to.match(/lines\[|details|request body/);
    expect(r.fields['lines[0].quantity']).to.equal('Must be at least 1.');
  });

  it('says a refusal with a code of its own in a sentence, never the code or an HTTP status', () => {
    const linked = new Refusal(
      'reseller_product_linked',
      "SKU 'X' is still sold by WOOCOMMERCE store Tulips (DELETE /stores/{id}/links/{linkId} first).",
    );
    const message = refusal(linked).message;
    expect(message).to.contain('This product is sold in one of your stores, so it cannot be deleted');
    expect(message).not.to.match(/reseller_product_linked|409|DELETE \//);
    expect(
      merchantMessage('store_disconnected', 'Store sto_1 is disconnected (POST /stores to connect it again).', []),
    ).to.equal('Store sto_1 is disconnected.');
    expect(plainText('It cannot: the API answers 409 reseller_product_linked.')).to.equal('It cannot.');
    // The API counts lines from 0; the dashboard from 1.
    expect(plainText('Line 0: A run of 1 cannot be made; lines[1].quantity must be 100.')).to.equal(
      'Line 1: A run of 1 cannot be made; Line 2: quantity must be 100.',
    );
  });

  it('reads a price as it is typed in Europe too: 29,95 is 29.95', () => {
    expect(parsePrice('29,95')).to.equal(2995);
    expect(parsePrice('29.95')).to.equal(2995);
    expect(parsePrice('€ 29,9')).to.equal(2990);
    expect(parsePrice('30')).to.equal(3000);
    expect(parsePrice('1.299,50')).to.equal(129950);
    expect(parsePrice('1,299.50')).to.equal(129950);
    expect(parsePrice('1.299')).to.equal(129900);
    for (const bad of ['', 'abc', '29,95,1', '-5', '1,2,3', '29.9.5']) expect(parsePrice(bad), bad).to.equal(undefined);
  });

  it('shows a page failed on our side as a page in words with a reference, not JSON with "Quote request id"', async () => {
    const logged: unknown[] = [];
    const logger = { error: (...a: unknown[]) => logged.push(a) } as never;
    const app = express();
    app.use((req, _res, next) => {
      req.requestId = 'req_test_1';
      next();
    });
    app.get('/dashboard/boom', () => {
      throw new Error('kaboom');
    });
    app.use(dashboardErrorPage(logger, asServiceUnavailable));
    const server = app.listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/dashboard/boom`;
      const res = await fetch(url, { headers: { accept: 'text/html' } });
      expect(res.status).to.equal(500);
      const body = await res.text();
      expect(body).to.contain('Something went wrong on our side: this page could not be shown. Try again in a moment.');
      expect(body).to.contain('mention reference <code data-testid="reference">req_test_1</code>');
      expect(body).not.to.match(/Quote request id|internal_error|kaboom/);
      expect(logged).to.have.length(1);
    } finally {
      server.close();
    }
  });
});
