import assert from 'node:assert/strict';
import { minorUnitsToDecimal } from '../money.ts';
import type { ConformanceService, FakeStore } from './fake-platform.ts';

interface Published {
  id: string;
  status: string;
  externalProductId: string;
  currency: string;
  linkId: string | null;
  notice: string | null;
}

interface Listing {
  externalProductId: string;
  sku: string | null;
  active: boolean;
  resellerProduct: { sku: string } | null;
}

/** What the publishing scenarios use of the suite around them. */
export interface PublishingScenarioDeps {
  service: () => ConformanceService & { sku: string };
  /** A fresh reseller (selling `sku`) with a store on the fake platform. */
  connected: () => Promise<{ key: string; store: FakeStore }>;
  eventually: <T>(probe: () => Promise<T | undefined | null | false>, what: string) => Promise<T>;
  /** What a publish yields on the fake platform (`FakePlatform.publishYields`). */
  publishYields: 'active' | 'draft';
}

/**
 * The publishing scenarios, for connectors declaring `capabilities.publishing`: a product
 * published through `POST /stores/{id}/listings` is in the store with the SKU and the price
 * (the fake's `product`), and the store's listings (read through the connector's
 * `listListings`) show it matched; a change of title and price reaches the store; unpublishing
 * takes it off sale there and removes our link. Registered by `connectorConformance`.
 *
 * Where a publish yields a draft (`publishYields: 'draft'`: Etsy, which lists nothing without an
 * image, and the scenarios publish none), the first scenario checks the draft (in the store with the SKU
 * and the price, off sale, a notice saying what it needs), then does what the merchant does (the
 * fake's `completeListing`) and puts it on sale with `PATCH {published: true}`: the same
 * assertions follow. Unpublishing takes a listing on sale off sale on every platform.
 */
export function publishingScenarios(deps: PublishingScenarioDeps): void {
  const api = <T = any>(key: string, method: string, path: string, body?: unknown) =>
    deps.service().api<T>(key, method, path, body);
  const product = (store: FakeStore, id: string) => {
    assert.ok(store.product, 'a fake store of a publishing platform implements product(externalProductId)');
    return store.product(id);
  };

  /** Published, read again while the platform is still creating it (202, `pending`). */
  async function publish(key: string, store: FakeStore, body: Record<string, unknown>): Promise<Published> {
    const options = store.publishOptions ? { platformOptions: store.publishOptions } : {};
    const res = await api<{ data: Published }>(key, 'POST', `/stores/${store.storeId}/listings`, {
      ...body,
      ...options,
    });
    assert.ok(res.status === 201 || res.status === 202, `publish: ${res.status} ${JSON.stringify(res.body)}`);
    if (res.status === 201) return res.body.data;
    return deps.eventually(async () => {
      const now = (await api<{ data: Published }>(key, 'GET', `/stores/${store.storeId}/listings/${res.body.data.id}`))
        .body.data;
      return now.status !== 'pending' && now;
    }, 'the pending listing created');
  }

  /**
   * A published listing on sale: as published, or (a draft) completed on the platform by the merchant, then `PATCH
   * {published: true}`.
   */
  async function onSale(key: string, store: FakeStore, listing: Published): Promise<Published> {
    assert.equal(listing.status, deps.publishYields, 'what a publish yields on this platform');
    if (listing.status === 'active') return listing;
    assert.ok(
      store.completeListing,
      'a fake store of a platform publishing drafts implements completeListing(externalProductId)',
    );
    store.completeListing(listing.externalProductId);
    const res = await api<{ data: Published }>(key, 'PATCH', `/stores/${store.storeId}/listings/${listing.id}`, {
      published: true,
    });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.data.status, 'active');
    return res.body.data;
  }

  const listings = async (key: string, storeId: string) =>
    (await api<{ data: Listing[] }>(key, 'GET', `/stores/${storeId}/listings?limit=100`)).body.data;

  it('publishes a product: in the store with the SKU and the price (a draft first where the platform makes drafts), on sale, and among its listings, matched', async () => {
    const { key, store } = await deps.connected();
    const sku = deps.service().sku;
    const published = await publish(key, store, { resellerProduct: sku, title: 'Tulip poster A2', priceCents: 2495 });
    const expected = { sku, title: 'Tulip poster A2', price: minorUnitsToDecimal(2495, published.currency) };
    const held = () => {
      const p = product(store, published.externalProductId);
      return p && { sku: p.sku, title: p.title, price: p.price, active: p.active };
    };
    if (deps.publishYields === 'draft') {
      assert.deepEqual(held(), { ...expected, active: false });
      assert.ok(published.notice, 'a draft says what the platform still needs to list it');
    }
    const listing = await onSale(key, store, published);
    assert.deepEqual(held(), { ...expected, active: true });
    const listed = await deps.eventually(
      async () =>
        (await listings(key, store.storeId)).find(
          (l) => l.externalProductId === listing.externalProductId && l.resellerProduct,
        ),
      'the published listing synced and matched',
    );
    assert.equal(listed.sku, sku);
    assert.equal(listed.active, true);
  });

  it('pushes a change of title and price to the store', async () => {
    const { key, store } = await deps.connected();
    const listing = await publish(key, store, {
      resellerProduct: deps.service().sku,
      title: 'Tulip poster',
      priceCents: 1995,
    });
    const res = await api(key, 'PATCH', `/stores/${store.storeId}/listings/${listing.id}`, {
      title: 'Tulip poster, A2',
      priceCents: 2195,
    });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const held = product(store, listing.externalProductId);
    assert.deepEqual(held && { title: held.title, price: held.price }, {
      title: 'Tulip poster, A2',
      price: minorUnitsToDecimal(2195, listing.currency),
    });
  });

  it('unpublishes: off sale in the store, our link removed', async () => {
    const { key, store } = await deps.connected();
    const listing = await onSale(
      key,
      store,
      await publish(key, store, { resellerProduct: deps.service().sku, title: 'Tulip poster', priceCents: 1995 }),
    );
    const res = await api(key, 'DELETE', `/stores/${store.storeId}/listings/${listing.id}`);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.notEqual(product(store, listing.externalProductId)?.active, true);
    const links = (await api<{ data: Array<{ id: string }> }>(key, 'GET', `/stores/${store.storeId}/links`)).body.data;
    assert.ok(!links.some((l) => l.id === listing.linkId), 'the link made by publishing is removed');
    await deps.eventually(
      async () =>
        (await listings(key, store.storeId)).every(
          (l) => l.externalProductId !== listing.externalProductId || !l.active,
        ),
      'the listing synced off sale',
    );
  });
}
