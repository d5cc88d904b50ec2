import assert from 'node:assert/strict';
import { adminApi } from './shopware-contract.ts';

const id = '0123456789abcdef0123456789abcdef';
const check = (method: string, path: string, body?: unknown) =>
  adminApi.check({
    method,
    path,
    query: new URLSearchParams(),
    ...(body === undefined ? {} : { body: JSON.stringify(body), contentType: 'application/json' }),
  }).violations;

// The fake holds every call to the vendored contract: it must take what the connector sends and refuse the mistakes
// it exists to catch.
describe("Shopware's Admin API contract, as the fake reads it", () => {
  it('takes the calls the connector makes', () => {
    assert.deepEqual(
      check('POST', '/oauth/token', { grant_type: 'client_credentials', client_id: 'SWIA', client_secret: 's' }),
      [],
    );
    assert.deepEqual(
      check('POST', '/search/order', {
        page: 1,
        limit: 50,
        filter: [{ type: 'range', field: 'createdAt', parameters: { gte: '2026-11-28 10:00:00.000' } }],
        sort: [{ field: 'createdAt', order: 'ASC' }],
        associations: { deliveries: { associations: { shippingOrderAddress: {} } } },
        'total-count-mode': 'none',
      }),
      [],
    );
    assert.deepEqual(
      check('POST', '/search/sales-channel', { limit: 1, filter: [{ type: 'equals', field: 'typeId', value: id }] }),
      [],
    );
    assert.deepEqual(check('PATCH', `/order-delivery/${id}`, { trackingCodes: ['1Z999'] }), []);
    assert.deepEqual(check('POST', `/_action/order_delivery/${id}/state/ship`, {}), []);
  });

  it('refuses an unknown operation, a Criteria field or filter it does not declare, a wrong type, a bad id, an enum value', () => {
    assert.match(check('GET', '/order')[0]!, /no operation GET \/order/);
    assert.match(check('POST', '/search/order', { filters: [] })[0]!, /body\.filters is not a field/);
    assert.ok(
      check('POST', '/search/order', { filter: [{ type: 'between', field: 'createdAt', value: 'x' }] }).length > 0,
    );
    assert.match(check('POST', '/search/order', { limit: '50' })[0]!, /body\.limit must be integer/);
    assert.match(check('POST', '/search/order', { 'total-count-mode': 1 })[0]!, /total-count-mode/);
    assert.ok(check('PATCH', '/order-delivery/42', { trackingCodes: ['x'] }).some((v) => /does not match/.test(v)));
    assert.match(check('PATCH', `/order-delivery/${id}`, { trackingCodes: 'x' })[0]!, /trackingCodes must be array/);
    assert.match(check('PATCH', `/order-delivery/${id}`, { tracking: ['x'] })[0]!, /body\.tracking is not a field/);
    assert.ok(check('POST', '/oauth/token', { grant_type: 'client_credentials', client_id: 'SWIA' }).length > 0);
    const product = {
      id,
      productNumber: 'P',
      name: 'n',
      stock: 0,
      taxId: id,
      price: [{ currencyId: id, gross: 1, net: 1, linked: true }],
    };
    assert.deepEqual(check('POST', '/product', product), []);
    assert.match(
      check('POST', '/product', {
        ...product,
        visibilities: [{ id, productId: id, salesChannelId: id, visibility: 40 }],
      })[0]!,
      /visibility value 40/,
    );
    assert.match(check('POST', '/product', { ...product, taxId: undefined })[0]!, /body\.taxId is required/);
  });
});
