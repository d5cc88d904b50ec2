import { expect } from 'chai';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { CatalogError, DEFAULT_CATALOG_DIR, loadCatalog } from '../../src/modules/catalog/catalog.ts';
import { LANGS } from '../../src/modules/catalog/catalog-schema.ts';
import { resolveConfiguration } from '../../src/modules/quotes/configuration.ts';

describe('the catalogue', () => {
  const catalog = loadCatalog();

  it('is a real range: at least 14 products over at least 8 categories, both pricing kinds', () => {
    expect(catalog.products.length).to.be.at.least(14);
    expect(new Set(catalog.products.map((p) => p.category)).size).to.be.at.least(8);
    expect(catalog.products.some((p) => p.quantity.pricedBy === 'copies')).to.equal(true);
    expect(catalog.products.some((p) => p.quantity.pricedBy === 'piece')).to.equal(true);
  });

  it('resolves every product by each of its slugs in all four languages, and slugs differ per language', () => {
    for (const p of catalog.products) {
      for (const lang of LANGS) expect(catalog.find(p.slugs[lang])?.id, `${p.id} ${lang}`).to.equal(p.id);
      expect(catalog.find(p.slugs.en.toUpperCase())?.id).to.equal(p.id);
      expect(new Set(Object.values(p.slugs)).size, p.id).to.be.greaterThan(1);
    }
  });

  it('gives every product a default configuration that prices, automatic options and file requirements', () => {
    for (const p of catalog.products) {
      const quantity = p.quantity.pricedBy === 'copies' ? p.quantity.runs[0]! : p.quantity.min;
      const r = resolveConfiguration(p, { quantity }, 0);
      expect(r.ok, `${p.id}: ${JSON.stringify(r)}`).to.equal(true);
      expect(p.automatic.map((a) => a.key)).to.include.members(['printProcess', 'sheetFormat', 'bundling', 'packaging']);
      expect(p.fileRequirements.acceptedTypes).to.include('pdf');
      expect(p.weightGramsPerPiece).to.be.greaterThan(0);
    }
  });

  it('has conflicts, unpriceable combinations, restricted runs and an availability-adjusted default', () => {
    expect(catalog.products.some((p) => p.constraints.length > 0)).to.equal(true);
    expect(catalog.products.some((p) => p.unpriceable.length > 0)).to.equal(true);
    expect(catalog.products.some((p) => p.runRules.length > 0)).to.equal(true);
    expect(catalog.find('posters')!.constraints.some((c) => c.availability)).to.equal(true);
  });

  it('searches names in the chosen language and slugs, and filters by category', () => {
    expect(catalog.search({ q: 'visitenkarten', lang: 'de' }).map((p) => p.id)).to.deep.equal(['business-cards']);
    expect(catalog.search({ q: 'cartes de visite', lang: 'fr' }).map((p) => p.id)).to.deep.equal(['business-cards']);
    expect(catalog.search({ category: 'flyers', lang: 'nl' }).map((p) => p.id)).to.deep.equal(['flyers-a4', 'flyers-a5', 'flyers-a6']);
  });

  describe('a broken catalogue stops the service with a precise message', () => {
    let dir: string;
    beforeEach(() => {
      dir = mkdtempSync(path.join(tmpdir(), 'catalog-'));
      cpSync(DEFAULT_CATALOG_DIR, dir, { recursive: true });
    });
    afterEach(() => rmSync(dir, { recursive: true, force: true }));

    const breakProduct = (id: string, mutate: (p: any) => void) => {
      const file = path.join(dir, 'products', `${id}.json`);
      const p = JSON.parse(readFileSync(file, 'utf8'));
      mutate(p);
      writeFileSync(file, JSON.stringify(p));
      return file;
    };

    it('names the file and the field of a default that is not an allowed value', () => {
      const file = breakProduct('posters', (p) => (p.options[1].default = 'canvas'));
      expect(() => loadCatalog(dir)).to.throw(CatalogError, new RegExp(`${file.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}[\\s\\S]*options\\.1\\.default: default 'canvas' is not one of the values of 'paper'`));
    });

    it('refuses a missing translation', () => {
      breakProduct('flyers-a5', (p) => delete p.names.fr);
      expect(() => loadCatalog(dir)).to.throw(CatalogError, /flyers-a5\.json[\s\S]*names\.fr/);
    });

    it('refuses a run size that would make unit prices inexact', () => {
      breakProduct('flyers-a6', (p) => {
        p.quantity.runs.push(300);
        p.runPrices['300'] = '2500';
      });
      expect(() => loadCatalog(dir)).to.throw(CatalogError, /quantity\.runs\.\d+: run sizes must be of the form/);
    });

    it('refuses a float price', () => {
      breakProduct('business-cards', (p) => (p.runPrices['100'] = 18.95));
      expect(() => loadCatalog(dir)).to.throw(CatalogError, /runPrices\.100: Invalid input/);
    });

    it('refuses a constraint naming an unknown option value', () => {
      breakProduct('business-cards', (p) => (p.constraints[0].forbid.finish = ['glitter']));
      expect(() => loadCatalog(dir)).to.throw(CatalogError, /constraints\.0\.forbid\.finish: names an unknown value 'glitter'/);
    });

    it('refuses a slug used by two products', () => {
      breakProduct('postcards', (p) => (p.slugs.de = 'visitenkarten'));
      expect(() => loadCatalog(dir)).to.throw(CatalogError, /'visitenkarten' names both/);
    });

    it('refuses invalid JSON', () => {
      writeFileSync(path.join(dir, 'products', 'posters.json'), '{ nope');
      expect(() => loadCatalog(dir)).to.throw(CatalogError, /posters\.json is not valid JSON/);
    });
  });
});
