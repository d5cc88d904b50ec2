import { expect } from 'chai';
import { z } from 'zod';
import { ConnectorError, parseJsonPayload, parsePayload } from '../src/index.ts';

const receipt = z.object({
  receipt_id: z.number(),
  transactions: z.array(z.object({ sku: z.string().nullable(), quantity: z.number().int().positive() })),
});

function failure(work: () => unknown): ConnectorError {
  try {
    work();
  } catch (err) {
    expect(err).to.be.instanceOf(ConnectorError);
    return err as ConnectorError;
  }
  expect.fail('expected a ConnectorError');
}

describe('connector kit: parse-or-invalid_payload', () => {
  it('answers the parsed value when the payload fits the schema', () => {
    const body = '{"receipt_id":3456789012,"transactions":[{"sku":"POD-TEE-CAT-M","quantity":2}],"extra":true}';
    expect(parseJsonPayload(receipt, body, 'Etsy receipt')).to.deep.equal({
      receipt_id: 3456789012,
      transactions: [{ sku: 'POD-TEE-CAT-M', quantity: 2 }],
    });
    expect(parseJsonPayload(receipt, Buffer.from(body), 'Etsy receipt').receipt_id).to.equal(3456789012);
  });

  it('names the path of the failing field, as invalid_payload', () => {
    const err = failure(() =>
      parseJsonPayload(
        receipt,
        '{"receipt_id":1,"transactions":[{"sku":null,"quantity":1},{"sku":"A","quantity":"2"}]}',
        'Etsy receipt',
      ),
    );
    expect(err.kind).to.equal('invalid_payload');
    expect(err.message).to.match(/^Etsy receipt: transactions\[1\]\.quantity: /);
    expect(err.message).to.contain('number');
  });

  it('counts further problems without listing them', () => {
    const err = failure(() => parsePayload(receipt, { transactions: 'none' }, 'Etsy receipt'));
    expect(err.message).to.match(/^Etsy receipt: receipt_id: .+ \(and 1 more\)$/);
  });

  it('fails text that is not JSON as invalid_payload, quoting only its start', () => {
    const html = `<html><body>${'x'.repeat(500)}</body></html>`;
    const err = failure(() => parseJsonPayload(receipt, html, 'Etsy receipt'));
    expect(err.kind).to.equal('invalid_payload');
    expect(err.message).to.equal(`Etsy receipt: not JSON (starts with ${JSON.stringify(html.slice(0, 60))})`);
    expect(failure(() => parseJsonPayload(receipt, '', 'Etsy receipt')).message).to.equal(
      'Etsy receipt: not JSON (empty)',
    );
  });

  it('reports a failure at the top level without a path', () => {
    expect(failure(() => parsePayload(receipt, [], 'Etsy receipt')).message).to.match(
      /^Etsy receipt: Invalid input: expected object/,
    );
  });
});
