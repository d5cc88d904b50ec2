import { expect } from 'chai';
import { fileURLToPath } from 'node:url';
import { assertGolden } from '@print-api/connector-kit/testing';
import { parseTikTokJson } from '../src/json.ts';
import { parseTikTokOrder, toStoreOrder } from '../src/order-mapper.ts';
import corpus from './fixtures/golden/orders.samples.json' with { type: 'json' };

/**
 * TikTok Shop orders (fixtures/golden/orders.samples.json: third-party, where each comes from) through the parser and
 * mapper, kept as a snapshot.
 */
describe('TikTok Shop orders through the mapper (golden corpus, third-party samples)', () => {
  it('maps every sample as the snapshot says', () => {
    const mapped = corpus.samples.map(({ name, json }) => ({
      name,
      storeOrder: toStoreOrder(parseTikTokOrder(parseTikTokJson(json))),
    }));
    assertGolden(fileURLToPath(new URL('./fixtures/golden/orders.expected.json', import.meta.url)), mapped);
  });

  it('keeps 64-bit ids sent as bare numbers digit for digit', () => {
    const big = corpus.samples.find((s) => s.name.startsWith('64-bit'))!;
    const order = toStoreOrder(parseTikTokOrder(parseTikTokJson(big.json)));
    expect([order.externalId, order.lines[0]!.externalVariantId]).to.deep.equal([
      '576461413038785752',
      '1729000000000000001',
    ]);
  });
});
