import { expect } from 'chai';
import { loadCatalog } from '../../src/modules/catalog/catalog.ts';
import { LANGS } from '../../src/modules/catalog/catalog-schema.ts';
import { toProductDetail, toProductSummary } from '../../src/modules/catalog/product-views.ts';
import { resolveConfiguration } from '../../src/modules/quotes/configuration.ts';

const catalog = loadCatalog();
const product = (id: string) => catalog.find(id)!;

describe('product views', () => {
  it('summarises a product in one language with slugs in all four', () => {
    const s = toProductSummary(product('business-cards'), 'de');
    expect(s).to.deep.include({
      id: 'business-cards',
      slugs: { nl: 'visitekaartjes', en: 'business-cards', de: 'visitenkarten', fr: 'cartes-de-visite' },
      name: 'Visitenkarten',
      category: 'business-cards',
      quantity: { pricedBy: 'copies', runs: [100, 250, 500, 1000, 2500, 5000] },
    });
    expect(s.options.map((o) => o.key)).to.deep.equal(['paper', 'sides', 'finish', 'corners']);
    expect(s.options[0]).to.include({ key: 'paper', name: 'Papier', default: 'mc350' });
    expect(s.options[0]!.values[0]).to.have.keys(['value', 'label']);
  });

  it('shows piece products with their quantity range', () => {
    expect(toProductSummary(product('posters'), 'en').quantity).to.deep.equal({ pricedBy: 'piece', min: 1, max: 500 });
  });

  it('shows as default the value an omitted option really gets, and flags options availability can move', () => {
    const paper = toProductSummary(product('posters'), 'nl').options.find((o) => o.key === 'paper')!;
    expect(paper).to.include({ default: 'satin170', adjustedByAvailability: true });
    expect(toProductSummary(product('posters'), 'nl').options.find((o) => o.key === 'size')).to.not.have.property(
      'adjustedByAvailability',
    );
    for (const p of catalog.products) {
      const shown = Object.fromEntries(toProductSummary(p, 'en').options.map((o) => [o.key, o.default]));
      const r = resolveConfiguration(p, { options: {} }, 0);
      expect(r.ok && r.options, p.id).to.deep.equal(shown);
    }
  });

  it('details quantity rules in full: runs with their restrictions, or tiers with min and max', () => {
    const cards = toProductDetail(product('business-cards'), 'en');
    expect(cards.quantity).to.deep.include({ pricedBy: 'copies', runs: [100, 250, 500, 1000, 2500, 5000] });
    expect(cards.quantity.pricedBy === 'copies' && cards.quantity.runRestrictions).to.deep.include({
      when: { finish: ['spot-uv'] },
      runs: [250, 500, 1000, 2500],
    });
    const posters = toProductDetail(product('posters'), 'en');
    expect(posters.quantity).to.deep.include({
      pricedBy: 'piece',
      min: 1,
      max: 500,
      tiers: [
        { from: 1, to: 9 },
        { from: 10, to: 49 },
        { from: 50, to: 99 },
        { from: 100, to: 500 },
      ],
    });
  });

  it('details description, restrictions, weight, automatic options and file requirements', () => {
    const d = toProductDetail(product('posters'), 'fr');
    expect(d.description).to.contain('Affiches');
    expect(d.startingConfiguration).to.deep.equal({ size: 'a2', paper: 'satin170' });
    expect(d.automaticOptions.map((a) => a.key)).to.deep.equal([
      'printProcess',
      'sheetFormat',
      'bundling',
      'packaging',
    ]);
    expect(d.restrictions.map((r) => r.kind)).to.deep.equal(['unavailable', 'unavailable', 'not_offered']);
    expect(d.weightGramsPerPiece).to.equal(45);
    expect(d.fileRequirements).to.deep.include({
      acceptedTypes: ['pdf', 'png', 'jpg'],
      trimSizeMm: { width: 420, height: 594 },
      bleedMm: 3,
      minResolutionDpi: 150,
      colourSpace: 'CMYK',
    });
    expect(d.fileRequirements.trimSizesMm?.values.a0).to.deep.equal({ width: 841, height: 1189 });
    const envelopes = toProductDetail(product('envelopes'), 'en');
    expect(envelopes.restrictions).to.deep.include({
      kind: 'unpriceable',
      when: { size: ['c4'], window: ['window-left'] },
      reason: envelopes.restrictions[0]!.reason,
    });
  });

  it('renders every product in every language without gaps', () => {
    for (const p of catalog.products) {
      for (const lang of LANGS) {
        const d = toProductDetail(p, lang);
        expect(d.name, `${p.id} ${lang}`).to.equal(p.names[lang]);
        expect(d.description).to.not.be.empty;
        expect(d.fileRequirements.notes).to.not.be.empty;
        for (const o of d.options) for (const v of o.values) expect(v.label, `${p.id} ${o.key}`).to.not.be.empty;
      }
    }
  });
});
