import { expect } from 'chai';
import { httpAnswer } from '../../src/http/error-catalogue.ts';
import { Refusal } from '../../src/kernel/refusal.ts';
import { RouteTable } from '../../src/web/route-table.ts';
import type { HttpMethod } from '../../src/web/route.ts';

const route = (method: HttpMethod, path: string) => ({ method, path });
const table = new RouteTable([
  route('get', '/orders'),
  route('post', '/orders'),
  route('get', '/orders/{id}'),
  route('post', '/orders/{id}/cancel'),
  route('put', '/orders/{id}/lines/{line}/file'),
  route('get', '/stores/{id}/links'),
  route('delete', '/stores/{id}/links/{linkId}'),
]);
const find = (method: string, path: string) => {
  const match = table.find(method, path);
  return match && { path: match.route.path, params: match.params };
};

describe('RouteTable', () => {
  it('finds a path without parameters by method', () => {
    expect(find('GET', '/orders')).to.deep.equal({ path: '/orders', params: {} });
    expect(find('POST', '/orders')?.path).to.equal('/orders');
    expect(find('DELETE', '/orders')).to.equal(undefined);
  });

  it('binds parameters by name', () => {
    expect(find('PUT', '/orders/ord_1/lines/2/file')).to.deep.equal({
      path: '/orders/{id}/lines/{line}/file',
      params: { id: 'ord_1', line: '2' },
    });
    expect(find('DELETE', '/stores/sto_1/links/lnk_9')?.params).to.deep.equal({ id: 'sto_1', linkId: 'lnk_9' });
  });

  it('matches as express does by default: any case, one trailing slash, HEAD as GET', () => {
    expect(find('GET', '/ORDERS/')?.path).to.equal('/orders');
    expect(find('POST', '/Orders/ord_1/Cancel')?.params).to.deep.equal({ id: 'ord_1' });
    expect(find('HEAD', '/orders/ord_1')?.path).to.equal('/orders/{id}');
  });

  it('keeps the case of parameters and decodes them', () => {
    expect(find('GET', '/orders/Ord%20A%2FB')?.params).to.deep.equal({ id: 'Ord A/B' });
  });

  it('matches no empty parameter, no extra or missing segment, no other literal', () => {
    expect(find('GET', '/orders//')).to.equal(undefined);
    expect(find('POST', '/orders//cancel')).to.equal(undefined);
    expect(find('GET', '/orders/ord_1/extra')).to.equal(undefined);
    expect(find('POST', '/orders/ord_1/refund')).to.equal(undefined);
    expect(find('GET', '/stores/sto_1/ingests')).to.equal(undefined);
  });

  it('answers a parameter with broken percent-encoding with 400, only where every literal matched', () => {
    let refused: unknown;
    try {
      table.find('GET', '/orders/%E0%A4%A');
    } catch (err) {
      refused = err;
    }
    expect(refused).to.be.instanceOf(Refusal).with.property('code', 'invalid_request');
    expect(httpAnswer(refused as Refusal).status).to.equal(400);
    expect(find('POST', '/orders/%E0%A4%A/refund')).to.equal(undefined);
  });

  it('lists its routes in the order declared', () => {
    expect(table.routes.map((r) => `${r.method} ${r.path}`).slice(0, 3)).to.deep.equal([
      'get /orders',
      'post /orders',
      'get /orders/{id}',
    ]);
  });
});
