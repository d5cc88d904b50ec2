import { expect } from 'chai';
import { describeEachBackend } from '../helpers/test-service.ts';

describeEachBackend('GET /products and GET /products/{id}', (get) => {
  let key: string;
  before(async () => {
    key = (await get().reseller({ scopes: ['catalog:read'] })).key;
  });

  it('lists products in Dutch by default, with the list envelope', async () => {
    const res = await get().api(key, 'GET', '/products');
    expect(res.status).to.equal(200);
    expect(res.body).to.include({ limit: 25, maxLimit: 100, limitCapped: false, requestedLimit: 25, nextCursor: null });
    const cards = res.body.data.find((p: { id: string }) => p.id === 'business-cards');
    expect(cards.name).to.equal('Visitekaartjes');
    expect(cards.slugs).to.deep.equal({
      nl: 'visitekaartjes',
      en: 'business-cards',
      de: 'visitenkarten',
      fr: 'cartes-de-visite',
    });
    expect(cards.quantity.pricedBy).to.equal('copies');
    expect(cards.options[0]).to.include({ key: 'paper', default: 'mc350' });
  });

  it('searches, filters by category, speaks the chosen language and pages with a cursor', async () => {
    const t = get();
    const de = await t.api(key, 'GET', '/products?q=poster&lang=de');
    expect(de.body.data.map((p: { id: string }) => p.id)).to.deep.equal(['posters']);
    expect(de.body.data[0].name).to.equal('Poster');
    expect(
      (await t.api(key, 'GET', '/products?category=flyers&lang=fr')).body.data.map((p: { name: string }) => p.name),
    ).to.deep.equal(['Flyers A4', 'Flyers A5', 'Flyers A6']);
    const first = await t.api(key, 'GET', '/products?limit=5');
    const second = await t.api(key, 'GET', `/products?limit=5&cursor=${first.body.nextCursor}`);
    expect(second.body.data[0].id > first.body.data[4].id).to.equal(true);
    expect((await t.api(key, 'GET', '/products?lang=es')).status).to.equal(400);
    expect((await t.api(key, 'GET', '/products?limit=1000')).body.limitCapped).to.equal(true);
  });

  it('finds a product by id or by its slug in any language, with file requirements', async () => {
    const t = get();
    for (const ref of ['business-cards', 'visitekaartjes', 'visitenkarten', 'cartes-de-visite']) {
      const res = await t.api(key, 'GET', `/products/${ref}?lang=en`);
      expect(res.status, ref).to.equal(200);
      expect(res.body.data.id).to.equal('business-cards');
    }
    const detail = (await t.api(key, 'GET', '/products/posters?lang=en')).body.data;
    expect(detail.fileRequirements).to.include({ bleedMm: 3, minResolutionDpi: 150, colourSpace: 'CMYK' });
    expect(detail.quantity).to.include({ pricedBy: 'piece', min: 1, max: 500 });
    expect(detail.automaticOptions.map((a: { key: string }) => a.key)).to.include('packaging');
  });

  it('answers an unknown product with 404', async () => {
    const res = await get().api(key, 'GET', '/products/unicorn-stickers');
    expect(res.status).to.equal(404);
    expect(res.body.error.code).to.equal('not_found');
  });
});
