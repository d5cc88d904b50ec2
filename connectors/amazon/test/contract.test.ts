import assert from 'node:assert/strict';
import { searchQuery } from '../src/order-polling.ts';
import { carrierFields } from '../src/shipment-push.ts';
import { CONTRACTS } from './fake-amazon.ts';

const contract = (prefix: string) => CONTRACTS.find(([p]) => p === prefix)![1];
const orders = contract('/orders/2026-01-01/');
const v0 = contract('/orders/v0/');
const listings = contract('/listings/2021-08-01/');
const get = (c: typeof orders, path: string, query: Record<string, string>) =>
  c.check({ method: 'GET', path, query: new URLSearchParams(query) }).violations;
const confirm = (body: unknown) =>
  v0.check({
    method: 'POST',
    path: '/orders/v0/orders/302-1234567-1234567/shipmentConfirmation',
    query: new URLSearchParams(),
    body: JSON.stringify(body),
    contentType: 'application/json',
  }).violations;
const goodShipment = {
  marketplaceId: 'A1PA6795UKMFR9',
  packageDetail: {
    packageReferenceId: '1',
    ...carrierFields('DHL'),
    trackingNumber: '00340434161094042557',
    shipDate: '2026-03-01T12:00:00Z',
    orderItems: [{ orderItemId: '12345678901234', quantity: 2 }],
  },
};

/**
 * Amazon's own models (fixtures/contract, Apache-2.0) hold what the connector sends: the fake
 * checks every call against them, and these show the check refuses what Amazon would.
 */
describe("Amazon's published models hold our calls", () => {
  it('the models declare the operations the connector calls', () => {
    const ops = CONTRACTS.flatMap(([, c]) => c.operations().map((o) => o.split(' ').at(-1)));
    for (const op of [
      'searchOrders',
      'getOrder',
      'confirmShipment',
      'searchListingsItems',
      'getMarketplaceParticipations',
    ])
      assert.ok(ops.includes(op), op);
  });

  it("searchOrders: the connector's query conforms; an unknown parameter, a status or includedData Amazon does not have, more than 50 marketplaces fail", () => {
    const ours = searchQuery('2026-03-01T11:55:00Z', ['A1PA6795UKMFR9', 'A13V1IB3VIYZZH']);
    assert.deepEqual(get(orders, '/orders/2026-01-01/orders', ours), []);
    assert.deepEqual(get(orders, '/orders/2026-01-01/orders', { ...ours, paginationToken: 'abc' }), []);
    const refused = (query: Record<string, string>, pattern: RegExp) =>
      assert.match(get(orders, '/orders/2026-01-01/orders', query).join('\n'), pattern);
    refused({ ...ours, OrderStatuses: 'Unshipped' }, /query parameter OrderStatuses is not in the contract/);
    refused({ ...ours, fulfillmentStatuses: 'UNSHIPPED,Canceled' }, /"Canceled" is not one of/);
    refused({ ...ours, fulfilledBy: 'MFN' }, /"MFN" is not one of MERCHANT, AMAZON/);
    refused({ ...ours, includedData: 'RECIPIENT,ADDRESS' }, /"ADDRESS" is not one of/);
    refused({ ...ours, lastUpdatedAfter: '2026-03-01 11:55' }, /not an RFC 3339 date-time/);
    refused(
      { ...ours, marketplaceIds: Array.from({ length: 51 }, (_, i) => `A${String(i).padStart(12, '0')}`).join(',') },
      /more than 50 items/,
    );
    refused({ ...ours, maxResultsPerPage: 'ten' }, /must be integer/);
  });

  it('getOrder: includedData from the enum only', () => {
    assert.deepEqual(
      get(orders, '/orders/2026-01-01/orders/302-1234567-1234567', {
        includedData: 'RECIPIENT,FULFILLMENT,BUYER,PACKAGES',
      }),
      [],
    );
    assert.match(
      get(orders, '/orders/2026-01-01/orders/302-1234567-1234567', { includedData: 'SHIPPING' }).join(),
      /"SHIPPING" is not one of/,
    );
  });

  it('confirmShipment: our body conforms; packageReferenceId as a number, a missing required field, a field v0 does not declare fail', () => {
    assert.deepEqual(confirm(goodShipment), []);
    assert.match(
      confirm({ ...goodShipment, packageDetail: { ...goodShipment.packageDetail, packageReferenceId: 1 } }).join(),
      /packageReferenceId must be string/,
    );
    const { trackingNumber: _t, ...untracked } = goodShipment.packageDetail;
    assert.match(
      confirm({ ...goodShipment, packageDetail: untracked }).join(),
      /body.packageDetail.trackingNumber is required/,
    );
    assert.match(
      confirm({
        ...goodShipment,
        packageDetail: { ...goodShipment.packageDetail, trackingUrl: 'https://t.example/1' },
      }).join(),
      /trackingUrl is not a field the contract declares/,
    );
    assert.match(
      confirm({
        ...goodShipment,
        packageDetail: { ...goodShipment.packageDetail, orderItems: { orderItemId: '1', quantity: 1 } },
      }).join(),
      /orderItems must be array/,
    );
  });

  it('searchListingsItems: marketplaceIds required, pageSize at most 20, includedData from the enum', () => {
    const path = '/listings/2021-08-01/items/A3TH9S8BH6GOGM';
    assert.deepEqual(
      get(listings, path, { marketplaceIds: 'A1PA6795UKMFR9', includedData: 'summaries', pageSize: '20' }),
      [],
    );
    assert.match(
      get(listings, path, { includedData: 'summaries' }).join(),
      /required query parameter marketplaceIds is missing/,
    );
    assert.match(get(listings, path, { marketplaceIds: 'A1PA6795UKMFR9', pageSize: '50' }).join(), /50 is above 20/);
  });
});
