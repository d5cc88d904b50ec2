import { expect } from 'chai';
import { cpSync, mkdtempSync, readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { CatalogError, DEFAULT_CATALOG_DIR, loadCatalog } from '../../src/modules/catalog/catalog.ts';

/** Raw catalogue JSON: the tests break it on purpose, so it is not typed. */
type Json = any;

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

describe('loadCatalog: a broken catalogue stops the service with the file and the field', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'catalog-'));
    cpSync(DEFAULT_CATALOG_DIR, dir, { recursive: true });
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const edit = (relative: string, mutate: (json: Json) => void): string => {
    const file = path.join(dir, relative);
    const json = JSON.parse(readFileSync(file, 'utf8'));
    mutate(json);
    writeFileSync(file, JSON.stringify(json));
    return file;
  };
  const breakProduct = (id: string, mutate: (p: Json) => void) => edit(path.join('products', `${id}.json`), mutate);
  /** The loader throws a CatalogError whose message holds the file's full path and `field: message`. */
  const expectRefusal = (file: string, field: string, message: RegExp | string) => {
    expect(() => loadCatalog(dir)).to.throw(
      CatalogError,
      new RegExp(
        `${escape(file)}[\\s\\S]*\\n  ${escape(field)}: ${typeof message === 'string' ? escape(message) : message.source}`,
      ),
    );
  };

  it('loads an intact copy', () => {
    expect(loadCatalog(dir).products.length).to.equal(loadCatalog().products.length);
  });

  const cases: Array<[what: string, id: string, mutate: (p: Json) => void, field: string, message: RegExp | string]> = [
    [
      'a default that is not an allowed value',
      'posters',
      (p) => (p.options[1].default = 'canvas'),
      'options.1.default',
      "default 'canvas' is not one of the values of 'paper'",
    ],
    ['a missing translation of a name', 'flyers-a5', (p) => delete p.names.fr, 'names.fr', /Invalid input/],
    [
      'a missing translation of a value label',
      'envelopes',
      (p) => delete p.options[0].values[1].labels.de,
      'options.0.values.1.labels.de',
      /Invalid input/,
    ],
    [
      'a run size that makes unit prices inexact',
      'flyers-a6',
      (p) => {
        p.quantity.runs.push(30_000);
        p.runPrices['30000'] = '39995';
      },
      'quantity.runs.8',
      /run sizes must be of the form 2\^a x 5\^b/,
    ],
    ['a float price', 'business-cards', (p) => (p.runPrices['100'] = 18.95), 'runPrices.100', /Invalid input/],
    [
      'a run without a price',
      'postcards',
      (p) => delete p.runPrices['500'],
      'runPrices.500',
      'no price for the run of 500',
    ],
    [
      'a price for a run that is not sold',
      'postcards',
      (p) => (p.runPrices['20000'] = '49995'),
      'runPrices.20000',
      'priced run 20000 is not in quantity.runs',
    ],
    [
      'a bigger run that costs less',
      'letterheads',
      (p) => (p.runPrices['1000'] = '5000'),
      'runPrices.1000',
      'the run of 1000 costs less than the run of 500',
    ],
    [
      'a volume tier that costs more',
      'canvas-prints',
      (p) => (p.quantity.tiers[2].unitCents = '4995'),
      'quantity.tiers.2.unitCents',
      'a higher volume tier must not cost more per piece',
    ],
    [
      'a run rule with a run that is not sold',
      'round-stickers',
      (p) => p.runRules[0].runs.push(20_000),
      'runRules.0.runs.4',
      'run 20000 is not in quantity.runs',
    ],
    [
      'a conflict rule naming an unknown value',
      'business-cards',
      (p) => (p.constraints[0].forbid.finish = ['glitter']),
      'constraints.0.forbid.finish',
      "names an unknown value 'glitter' of 'finish'",
    ],
    [
      'a conflict rule naming an unknown option',
      'posters',
      (p) => (p.constraints[0].when = { colour: ['red'] }),
      'constraints.0.when.colour',
      "names an unknown option 'colour'",
    ],
    [
      'an unpriceable rule naming an unknown value',
      'envelopes',
      (p) => (p.unpriceable[0].when.size = ['b4']),
      'unpriceable.0.when.size',
      "names an unknown value 'b4' of 'size'",
    ],
    [
      'an automatic option a customer can also send',
      'roll-labels',
      (p) => (p.automatic[0].key = 'material'),
      'automatic.0.key',
      "'material' is both a customer and an automatic option",
    ],
    [
      'an automatic option with no fallback rule',
      'business-cards',
      (p) => p.automatic[0].rules.pop(),
      'automatic.0.rules.1.when',
      'the last rule must have no condition',
    ],
    [
      'the same slug in two languages',
      'foam-boards',
      (p) => (p.slugs.fr = p.slugs.en),
      'slugs.fr',
      "slug 'foam-boards' is also the en slug",
    ],
    ['an upper-case slug', 'postcards', (p) => (p.slugs.de = 'Postkarten'), 'slugs.de', 'must be a lowercase slug'],
    [
      'a starting configuration the partner does not offer',
      'flyers-a5',
      (p) => (p.options[3].default = 'matt-laminate'),
      'constraints.0',
      /the starting configuration .* breaks this rule/,
    ],
    [
      'a starting configuration that cannot be priced',
      'business-cards',
      (p) => ((p.options[0].default = 'recycled300'), (p.options[3].default = 'rounded')),
      'unpriceable.0',
      /the starting configuration .* cannot be priced/,
    ],
    [
      'a trim size missing for a size',
      'pvc-banners',
      (p) => delete p.fileRequirements.trimSizeMmByOption.values['300x100'],
      'fileRequirements.trimSizeMmByOption.values.300x100',
      "no trim size for 'size' = '300x100'",
    ],
    ['an unknown field', 'greeting-cards', (p) => (p.colour = 'red'), '(root)', /Unrecognized key/],
    [
      'copies as a customer option',
      'letterheads',
      (p) => (p.options[0].key = 'copies'),
      'options.0.key',
      "'copies' is reserved",
    ],
  ];
  for (const [what, id, mutate, field, message] of cases) {
    it(`refuses ${what}`, () => expectRefusal(breakProduct(id, mutate), field, message));
  }

  it('refuses a slug another product already uses, naming the second file and its field', () => {
    const file = breakProduct('postcards', (p) => (p.slugs.de = 'visitenkarten'));
    expectRefusal(file, 'slugs.de', "'visitenkarten' already names product business-cards");
  });

  it('refuses a product in a category that does not exist', () => {
    expectRefusal(
      breakProduct('posters', (p) => (p.category = 'mugs')),
      'category',
      "unknown category 'mugs'",
    );
  });

  it('refuses a file whose name is not the product id', () => {
    expectRefusal(
      breakProduct('posters', (p) => (p.id = 'big-posters')),
      'id',
      "'big-posters' does not match the file name posters.json",
    );
  });

  it('refuses a country in an unknown shipping zone, and a float VAT rate', () => {
    const file = edit('countries.json', (c) => (c.countries.NL.zone = 'moon'));
    expectRefusal(file, 'countries.NL.zone', "unknown shipping zone 'moon'");
    edit('countries.json', (c) => {
      c.countries.NL.zone = 'domestic';
      c.countries.DE.vatRate = 19;
    });
    expectRefusal(file, 'countries.DE.vatRate', /Invalid input/);
  });

  it('refuses a category listed twice', () => {
    const file = edit('categories.json', (c) => c.push(c[0]));
    expectRefusal(file, '9.slug', "category 'flyers' is listed twice");
  });

  it('refuses invalid JSON and a missing file', () => {
    writeFileSync(path.join(dir, 'products', 'posters.json'), '{ nope');
    expect(() => loadCatalog(dir)).to.throw(CatalogError, /posters\.json is not valid JSON/);
    rmSync(path.join(dir, 'products', 'posters.json'));
    unlinkSync(path.join(dir, 'countries.json'));
    expect(() => loadCatalog(dir)).to.throw(CatalogError, /countries\.json is not valid JSON: ENOENT/);
    expect(() => loadCatalog(path.join(dir, 'nowhere'))).to.throw(CatalogError, /cannot be read/);
  });
});
