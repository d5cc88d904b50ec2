import { expect } from 'chai';
import { loadCatalog } from '../../src/modules/catalog/catalog.ts';
import { LANGS } from '../../src/modules/catalog/catalog-schema.ts';
import { resolveConfiguration } from '../../src/modules/quotes/configuration.ts';

describe('the catalogue', () => {
  const catalog = loadCatalog();

  it('is a real range: at least 14 products over at least 8 categories, both pricing kinds', () => {
    expect(catalog.products.length).to.be.at.least(14);
    expect(new Set(catalog.products.map((p) => p.category)).size).to.be.at.least(8);
    expect(catalog.products.some((p) => p.quantity.pricedBy === 'copies')).to.equal(true);
    expect(catalog.products.some((p) => p.quantity.pricedBy === 'piece')).to.equal(true);
    expect(catalog.products.map((p) => p.id)).to.deep.equal(catalog.products.map((p) => p.id).sort());
    for (const c of catalog.categories)
      expect(catalog.search({ category: c.slug, lang: 'en' }), c.slug).to.not.be.empty;
  });

  it('resolves every product by each of its slugs in all four languages (any case), and by its id', () => {
    for (const p of catalog.products) {
      expect(catalog.find(p.id)?.id).to.equal(p.id);
      expect(new Set(Object.values(p.slugs)).size, `${p.id}: slugs differ per language`).to.equal(4);
      for (const lang of LANGS) {
        expect(catalog.find(p.slugs[lang])?.id, `${p.id} ${lang}`).to.equal(p.id);
        expect(catalog.find(p.slugs[lang].toUpperCase())?.id, `${p.id} ${lang} upper case`).to.equal(p.id);
      }
    }
    expect(catalog.find('unicorn-stickers')).to.equal(undefined);
  });

  it('gives every product a starting configuration that prices, the four automatic options and file requirements', () => {
    for (const p of catalog.products) {
      const quantity = p.quantity.pricedBy === 'copies' ? p.quantity.runs[0]! : p.quantity.min;
      const r = resolveConfiguration(p, { quantity }, 0);
      expect(r.ok, `${p.id}: ${JSON.stringify(r)}`).to.equal(true);
      expect(p.automatic.map((a) => a.key)).to.include.members([
        'printProcess',
        'sheetFormat',
        'bundling',
        'packaging',
      ]);
      expect(p.fileRequirements.acceptedTypes).to.include('pdf');
      expect(p.fileRequirements.minResolutionDpi).to.be.at.least(100);
      expect(p.weightGramsPerPiece).to.be.greaterThan(0);
    }
  });

  it('has conflicts, unpriceable combinations, restricted runs and an availability-adjusted default', () => {
    expect(catalog.products.filter((p) => p.constraints.some((c) => !c.availability)).length).to.be.at.least(3);
    expect(catalog.products.filter((p) => p.unpriceable.length > 0).length).to.be.at.least(3);
    expect(catalog.products.filter((p) => p.runRules.length > 0).length).to.be.at.least(3);
    const posters = catalog.find('posters')!;
    expect(posters.constraints.some((c) => c.availability)).to.equal(true);
    // The declared default paper is not available in the default size: the page starts elsewhere.
    const r = resolveConfiguration(posters, { quantity: 1 }, 0);
    expect(r.ok && r.options.paper).to.not.equal(posters.options.find((o) => o.key === 'paper')!.default);
  });

  it('searches names in the chosen language and slugs in every language, ignoring case and accents', () => {
    expect(catalog.search({ q: 'Visitenkarten', lang: 'de' }).map((p) => p.id)).to.deep.equal(['business-cards']);
    expect(catalog.search({ q: 'cartes de visite', lang: 'fr' }).map((p) => p.id)).to.deep.equal(['business-cards']);
    expect(catalog.search({ q: 'depliants', lang: 'fr' }).map((p) => p.id)).to.deep.equal(['folded-leaflets']);
    expect(catalog.search({ q: 'tracts', lang: 'en' }).map((p) => p.id)).to.deep.equal([
      'flyers-a4',
      'flyers-a5',
      'flyers-a6',
    ]);
    expect(catalog.search({ q: 'poster', lang: 'de' }).map((p) => p.id)).to.deep.equal(['posters']);
    expect(catalog.search({ q: 'zzz', lang: 'nl' })).to.deep.equal([]);
  });

  it('filters by category, sorted by id', () => {
    expect(catalog.search({ category: 'flyers', lang: 'nl' }).map((p) => p.id)).to.deep.equal([
      'flyers-a4',
      'flyers-a5',
      'flyers-a6',
    ]);
    expect(catalog.search({ category: 'stickers-labels', q: 'rol', lang: 'nl' }).map((p) => p.id)).to.deep.equal([
      'roll-labels',
    ]);
    expect(catalog.search({ category: 'no-such-category', lang: 'nl' })).to.deep.equal([]);
  });

  it('translates every name, description, option and value into all four languages', () => {
    for (const p of catalog.products) {
      for (const lang of LANGS) {
        expect(p.names[lang]).to.be.a('string').and.not.empty;
        expect(p.descriptions[lang]).to.be.a('string').and.not.empty;
        for (const o of p.options) {
          expect(o.names[lang], `${p.id} ${o.key}`).to.not.be.empty;
          for (const v of o.values) expect(v.labels[lang], `${p.id} ${o.key}=${v.value}`).to.not.be.empty;
        }
      }
    }
  });
});
