import { expect } from 'chai';
import { OpenApiContract } from '@print-api/connector-kit/testing';
import tiktokContract from './fixtures/contract/tiktok-shop-202309.third-party.json' with { type: 'json' };

const contract = new OpenApiContract(tiktokContract, 'TikTok Shop 202309 (third-party)');
const common = { app_key: '6b0c3fd2a5e7q', timestamp: '1767225600', sign: 'a'.repeat(64), shop_cipher: 'ROW_abc' };
const check = (method: string, path: string, query: Record<string, string>, body?: unknown) =>
  contract
    .check({
      method,
      path,
      query: new URLSearchParams({ ...common, ...query }),
      ...(body === undefined ? {} : { body: JSON.stringify(body), contentType: 'application/json' }),
    })
    .violations.join('\n');

/**
 * A third-party transcription of TikTok Shop's 202309 reference (fixtures/contract/SOURCE.md)
 * holds what the connector sends: the fake checks every API call against it.
 */
describe("TikTok Shop's (third-party) contract holds our calls", () => {
  it('orders search: our page query and update_time_ge body conform; a page over 100, an unknown sort, an unknown filter fail', () => {
    const query = { page_size: '50', sort_field: 'update_time', sort_order: 'ASC' };
    expect(check('POST', '/order/202309/orders/search', query, { update_time_ge: 1767225000 })).to.equal('');
    expect(check('POST', '/order/202309/orders/search', { ...query, page_size: '200' }, {})).to.match(
      /200 is above 100/,
    );
    expect(check('POST', '/order/202309/orders/search', { ...query, sort_field: 'paid_time' }, {})).to.match(
      /"paid_time" is not one of/,
    );
    expect(check('POST', '/order/202309/orders/search', query, { updated_since: 1767225000 })).to.match(
      /updated_since is not a field the contract declares/,
    );
    expect(check('POST', '/order/202309/orders/search', query, { order_status: 'PAID' })).to.match(
      /"PAID" is not one of/,
    );
  });

  it('order detail: at most 50 ids; the packages call needs a tracking number and a provider id', () => {
    expect(check('GET', '/order/202309/orders', { ids: '576461413038785752,576461413038785753' })).to.equal('');
    expect(
      check('GET', '/order/202309/orders', {
        ids: Array.from({ length: 51 }, (_, i) => String(576461413038785752n + BigInt(i))).join(','),
      }),
    ).to.match(/more than 50 items/);
    const ship = {
      tracking_number: '1Z999AA10123456784',
      shipping_provider_id: '6617675021119438849',
      order_line_item_ids: ['577000000000000001'],
    };
    expect(check('POST', '/fulfillment/202309/orders/576461413038785752/packages', {}, ship)).to.equal('');
    expect(
      check(
        'POST',
        '/fulfillment/202309/orders/576461413038785752/packages',
        {},
        { ...ship, shipping_provider_id: undefined, carrier: 'UPS' },
      ),
    ).to.match(/shipping_provider_id is required[^]*carrier is not a field/);
  });

  it('shop calls without shop_cipher, and a webhook event type TikTok does not list, fail', () => {
    const { shop_cipher: _c, ...unscoped } = common;
    expect(
      contract
        .check({ method: 'GET', path: '/order/202309/orders', query: new URLSearchParams({ ...unscoped, ids: '1' }) })
        .violations.join(),
    ).to.match(/required query parameter shop_cipher is missing/);
    expect(
      check(
        'PUT',
        '/event/202309/webhooks',
        {},
        {
          event_type: 'PRODUCT_STATUS_CHANGE',
          address: 'https://print-api.example.com/connectors/tiktok-shop/webhooks',
        },
      ),
    ).to.equal('');
    expect(
      check(
        'PUT',
        '/event/202309/webhooks',
        {},
        { event_type: 'ORDER_PAID', address: 'https://print-api.example.com/x' },
      ),
    ).to.match(/"ORDER_PAID" is not one of/);
  });
});
