import { expect } from 'chai';
import { fileURLToPath } from 'node:url';
import { assertGolden } from '@print-api/connector-kit/testing';
import { parseEtsyJson } from '../src/etsy-client.ts';
import { parseReceipt, toStoreOrder } from '../src/order-mapper.ts';
import corpus from './fixtures/golden/receipts.samples.json' with { type: 'json' };

/**
 * Etsy receipts (fixtures/golden/receipts.samples.json: where each comes from) through the parser and mapper, kept as a
 * snapshot.
 */
describe('Etsy receipts through the mapper (golden corpus)', () => {
  it('maps every sample as the snapshot says', () => {
    const mapped = corpus.samples.map(({ name, json }) => ({
      name,
      storeOrder: toStoreOrder(parseReceipt(parseEtsyJson(json))),
    }));
    assertGolden(fileURLToPath(new URL('./fixtures/golden/receipts.expected.json', import.meta.url)), mapped);
  });

  it('keeps 64-bit ids digit for digit', () => {
    const big = corpus.samples.find((s) => s.name.startsWith('64-bit'))!;
    const order = toStoreOrder(parseReceipt(parseEtsyJson(big.json)));
    expect([order.externalId, order.lines[0]!.externalLineId, order.lines[0]!.externalProductId]).to.deep.equal([
      '9223372036854775807',
      '9007199254740993',
      '18014398509481985',
    ]);
  });
});
