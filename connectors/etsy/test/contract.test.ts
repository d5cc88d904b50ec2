import { expect } from 'chai';
import { OpenApiContract } from '@print-api/connector-kit/testing';
import { SCOPES } from '../src/config.ts';
import etsyContract from './fixtures/contract/etsy-open-api-v3.subset.json' with { type: 'json' };

const contract = new OpenApiContract(etsyContract, 'Etsy Open API v3');
const check = (
  method: string,
  path: string,
  query: Record<string, string>,
  opts: { body?: string; contentType?: string; scopes?: readonly string[] } = {},
) => contract.check({ method, path, query: new URLSearchParams(query), ...opts }).violations.join('\n');

/**
 * Etsy's Open API v3 document (fixtures/contract) holds what the connector sends: the fake
 * checks every application call against it, scopes included; these show it refuses what Etsy would.
 */
describe("Etsy's Open API v3 document holds our calls", () => {
  it('the scopes the install asks for are the ones the operations we call need', () => {
    const needed = new Set(
      Object.values<Record<string, any>>(etsyContract.paths).flatMap((item) =>
        Object.values<any>(item).flatMap((op) =>
          (op.security ?? []).flatMap((s: { oauth2?: string[] }) => s.oauth2 ?? []),
        ),
      ),
    );
    expect([...needed].sort()).to.deep.equal([...SCOPES].sort());
  });

  it('getShopReceipts: the paid-unshipped poll conforms; an unknown filter, a sort Etsy does not have, a limit over 100 fail', () => {
    const poll = {
      was_paid: 'true',
      was_shipped: 'false',
      was_canceled: 'false',
      min_last_modified: '1767225600',
      sort_on: 'updated',
      sort_order: 'asc',
      limit: '100',
      offset: '0',
    };
    expect(check('GET', '/v3/application/shops/12345/receipts', poll, { scopes: SCOPES })).to.equal('');
    expect(check('GET', '/v3/application/shops/12345/receipts', { ...poll, status: 'paid' })).to.match(
      /query parameter status is not in the contract/,
    );
    expect(check('GET', '/v3/application/shops/12345/receipts', { ...poll, sort_on: 'last_modified' })).to.match(
      /"last_modified" is not one of created, updated, receipt_id/,
    );
    expect(check('GET', '/v3/application/shops/12345/receipts', { ...poll, limit: '500' })).to.match(
      /500 is above 100/,
    );
    expect(check('GET', '/v3/application/shops/12345/receipts', { ...poll, min_last_modified: '1000' })).to.match(
      /1000 is below 946684800/,
    );
    expect(check('GET', '/v3/application/shops/12345/receipts', { ...poll, was_paid: 'yes' })).to.match(
      /was_paid must be boolean/,
    );
  });

  it('getListingsByShop needs listings_r; includes takes its enum only', () => {
    const query = {
      state: 'active',
      includes: 'Inventory',
      sort_on: 'created',
      sort_order: 'asc',
      limit: '100',
      offset: '0',
    };
    expect(check('GET', '/v3/application/shops/12345/listings', query, { scopes: SCOPES })).to.equal('');
    expect(
      check('GET', '/v3/application/shops/12345/listings', query, {
        scopes: ['transactions_r', 'transactions_w', 'shops_r'],
      }),
    ).to.match(/lacks the OAuth scope listings_r/);
    expect(
      check('GET', '/v3/application/shops/12345/listings', { ...query, includes: 'Inventory,Variations' }),
    ).to.match(/"Variations" is not one of/);
  });

  it('createReceiptShipment: the form we send conforms and needs transactions_w; a field Etsy does not declare fails', () => {
    const path = '/v3/application/shops/12345/receipts/54321/tracking';
    const form = 'tracking_code=3SABCD0123456789&carrier_name=postnl&send_bcc=false';
    expect(
      check('POST', path, {}, { body: form, contentType: 'application/x-www-form-urlencoded', scopes: SCOPES }),
    ).to.equal('');
    expect(
      check(
        'POST',
        path,
        {},
        { body: form, contentType: 'application/x-www-form-urlencoded', scopes: ['transactions_r'] },
      ),
    ).to.match(/lacks the OAuth scope transactions_w/);
    expect(
      check(
        'POST',
        path,
        {},
        { body: `${form}&tracking_url=https%3A%2F%2Ft.example`, contentType: 'application/x-www-form-urlencoded' },
      ),
    ).to.match(/tracking_url is not a field the contract declares/);
    expect(check('POST', path, {}, { body: form, contentType: 'text/plain' })).to.match(
      /content type text\/plain is not one of/,
    );
  });

  it('createDraftListing and updateListingInventory: what publishing sends conforms and needs listings_w; a value outside the enums, a missing required field, an offering without readiness_state_id fail', () => {
    const form = {
      quantity: '999',
      title: 'Tulip poster',
      description: 'Tulips',
      price: '24.95',
      who_made: 'i_did',
      when_made: 'made_to_order',
      taxonomy_id: '2078',
      type: 'physical',
      is_supply: 'false',
      shipping_profile_id: '190712345',
    };
    const create = (f: Record<string, string>, scopes: readonly string[] = SCOPES) =>
      check(
        'POST',
        '/v3/application/shops/12345/listings',
        {},
        { body: new URLSearchParams(f).toString(), contentType: 'application/x-www-form-urlencoded', scopes },
      );
    expect(create(form)).to.equal('');
    expect(create(form, ['listings_r'])).to.match(/lacks the OAuth scope listings_w/);
    expect(create({ ...form, who_made: 'robot' })).to.match(/"robot" is not one of i_did, someone_else, collective/);
    const { taxonomy_id: _dropped, ...withoutTaxonomy } = form;
    expect(create(withoutTaxonomy)).to.match(/taxonomy_id is required/);
    const inventory = (offering: Record<string, unknown>) =>
      check(
        'PUT',
        '/v3/application/listings/4100000001/inventory',
        {},
        {
          body: JSON.stringify({
            products: [{ sku: 'POSTER-TULIPS', property_values: [], offerings: [offering] }],
            price_on_property: [],
            quantity_on_property: [],
            sku_on_property: [],
          }),
          contentType: 'application/json',
          scopes: SCOPES,
        },
      );
    expect(inventory({ price: 24.95, quantity: 999, is_enabled: true, readiness_state_id: null })).to.equal('');
    expect(inventory({ price: 24.95, quantity: 999, is_enabled: true })).to.match(/readiness_state_id is required/);
    expect(inventory({ price: '24.95', quantity: 999, is_enabled: true, readiness_state_id: null })).to.match(
      /price must be number/,
    );
    expect(
      check(
        'PATCH',
        '/v3/application/shops/12345/listings/4100000001',
        {},
        { body: 'state=draft', contentType: 'application/x-www-form-urlencoded', scopes: SCOPES },
      ),
    ).to.match(/"draft" is not one of active, inactive/);
  });

  it('an operation the document does not have fails', () => {
    expect(check('GET', '/v3/application/shops/12345/orders', {})).to.match(/no operation GET/);
  });
});
