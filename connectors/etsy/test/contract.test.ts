import { expect } from 'chai';
import { OpenApiContract } from '@print-api/connector-kit/testing';
import { SCOPES } from '../src/config.ts';
import etsyContract from './fixtures/contract/etsy-open-api-v3.subset.json' with { type: 'json' };

const contract = new OpenApiContract(etsyContract, 'Etsy Open API v3');
const check = (method: string, path: string, query: Record<string, string>, opts: { body?: string; contentType?: string; scopes?: readonly string[] } = {}) =>
  contract.check({ method, path, query: new URLSearchParams(query), ...opts }).violations.join('\n');

/**
 * Etsy's Open API v3 document (fixtures/contract) holds what the connector sends: the fake
 * checks every application call against it, scopes included; these show it refuses what Etsy would.
 */
describe("Etsy's Open API v3 document holds our calls", () => {
  it('the scopes the install asks for are the ones the operations we call need', () => {
    const needed = new Set(Object.values<Record<string, any>>(etsyContract.paths).flatMap((item) => Object.values<any>(item).flatMap((op) => (op.security ?? []).flatMap((s: { oauth2?: string[] }) => s.oauth2 ?? []))));
    expect([...needed].sort()).to.deep.equal([...SCOPES].sort());
  });

  it('getShopReceipts: the paid-unshipped poll conforms; an unknown filter, a sort Etsy does not have, a limit over 100 fail', () => {
    const poll = { was_paid: 'true', was_shipped: 'false', was_canceled: 'false', min_last_modified: '1767225600', sort_on: 'updated', sort_order: 'asc', limit: '100', offset: '0' };
    expect(check('GET', '/v3/application/shops/12345/receipts', poll, { scopes: SCOPES })).to.equal('');
    expect(check('GET', '/v3/application/shops/12345/receipts', { ...poll, status: 'paid' })).to.match(/query parameter status is not in the contract/);
    expect(check('GET', '/v3/application/shops/12345/receipts', { ...poll, sort_on: 'last_modified' })).to.match(/"last_modified" is not one of created, updated, receipt_id/);
    expect(check('GET', '/v3/application/shops/12345/receipts', { ...poll, limit: '500' })).to.match(/500 is above 100/);
    expect(check('GET', '/v3/application/shops/12345/receipts', { ...poll, min_last_modified: '1000' })).to.match(/1000 is below 946684800/);
    expect(check('GET', '/v3/application/shops/12345/receipts', { ...poll, was_paid: 'yes' })).to.match(/was_paid must be boolean/);
  });

  it('getListingsByShop needs listings_r; includes takes its enum only', () => {
    const query = { state: 'active', includes: 'Inventory', sort_on: 'created', sort_order: 'asc', limit: '100', offset: '0' };
    expect(check('GET', '/v3/application/shops/12345/listings', query, { scopes: SCOPES })).to.equal('');
    expect(check('GET', '/v3/application/shops/12345/listings', query, { scopes: ['transactions_r', 'transactions_w', 'shops_r'] })).to.match(/lacks the OAuth scope listings_r/);
    expect(check('GET', '/v3/application/shops/12345/listings', { ...query, includes: 'Inventory,Variations' })).to.match(/"Variations" is not one of/);
  });

  it('createReceiptShipment: the form we send conforms and needs transactions_w; a field Etsy does not declare fails', () => {
    const path = '/v3/application/shops/12345/receipts/54321/tracking';
    const form = 'tracking_code=3SABCD0123456789&carrier_name=postnl&send_bcc=false';
    expect(check('POST', path, {}, { body: form, contentType: 'application/x-www-form-urlencoded', scopes: SCOPES })).to.equal('');
    expect(check('POST', path, {}, { body: form, contentType: 'application/x-www-form-urlencoded', scopes: ['transactions_r'] })).to.match(/lacks the OAuth scope transactions_w/);
    expect(check('POST', path, {}, { body: `${form}&tracking_url=https%3A%2F%2Ft.example`, contentType: 'application/x-www-form-urlencoded' })).to.match(/tracking_url is not a field the contract declares/);
    expect(check('POST', path, {}, { body: form, contentType: 'text/plain' })).to.match(/content type text\/plain is not one of/);
  });

  it('an operation the document does not have fails', () => {
    expect(check('GET', '/v3/application/shops/12345/orders', {})).to.match(/no operation GET/);
  });
});
