import { expect } from 'chai';
import { loadCatalog } from '../../src/modules/catalog/catalog.ts';
import { resolveConfiguration } from '../../src/modules/quotes/configuration.ts';

const catalog = loadCatalog();
const product = (id: string) => catalog.find(id)!;

function problems(id: string, quantity: number, options: Record<string, unknown>) {
  const r = resolveConfiguration(product(id), { quantity, options }, 2);
  if (r.ok) throw new Error(`expected problems for ${id} ${JSON.stringify(options)}`);
  return r.problems;
}

type Case = [
  what: string,
  id: string,
  quantity: number,
  options: Record<string, unknown>,
  code: string,
  expected: Record<string, unknown>,
];

describe('option and quantity rules (spec §4): every 422 cause on several products', () => {
  const table: Case[] = [
    [
      'unknown key',
      'flyers-a5',
      250,
      { colour: 'red' },
      'invalid_options',
      { field: 'options.colour', allowedKeys: ['size', 'paper', 'sides', 'finish'] },
    ],
    [
      'automatic key',
      'business-cards',
      250,
      { printProcess: 'offset' },
      'invalid_options',
      { field: 'options.printProcess', allowedKeys: ['paper', 'sides', 'finish', 'corners'] },
    ],
    [
      'automatic key',
      'posters',
      2,
      { packaging: 'box' },
      'invalid_options',
      { field: 'options.packaging', allowedKeys: ['size', 'paper'] },
    ],
    [
      'unknown key',
      'roll-labels',
      500,
      { shape: 'oval' },
      'invalid_options',
      { field: 'options.shape', allowedKeys: ['size', 'material'] },
    ],
    [
      'invalid value',
      'flyers-a5',
      250,
      { paper: 'mc999' },
      'invalid_option_value',
      { field: 'options.paper', allowedValues: ['mc90', 'mc135', 'mc170', 'mc250', 'uncoated120'] },
    ],
    [
      'invalid value',
      'posters',
      1,
      { size: 'a9' },
      'invalid_option_value',
      { field: 'options.size', allowedValues: ['a3', 'a2', 'a1', 'a0'] },
    ],
    [
      'value of the wrong type',
      'envelopes',
      250,
      { window: true },
      'invalid_option_value',
      { field: 'options.window', allowedValues: ['none', 'window-left'] },
    ],
    [
      'number that is not a value',
      'roll-up-banners',
      1,
      { size: 86 },
      'invalid_option_value',
      { field: 'options.size', allowedValues: ['85', '100', '120'] },
    ],
    [
      'laminate on thin paper',
      'flyers-a5',
      250,
      { paper: 'mc90', finish: 'matt-laminate' },
      'option_conflict',
      { field: 'options.finish' },
    ],
    [
      'laminate on the default paper',
      'flyers-a4',
      250,
      { finish: 'gloss-laminate' },
      'option_conflict',
      { field: 'options.finish' },
    ],
    [
      'spot UV on 350 g',
      'business-cards',
      250,
      { paper: 'mc350', finish: 'spot-uv' },
      'option_conflict',
      { field: 'options.paper' },
    ],
    ['satin in A0', 'posters', 1, { size: 'a0', paper: 'satin170' }, 'option_conflict', { field: 'options.paper' }],
    [
      '120 cm on the economy stand',
      'roll-up-banners',
      1,
      { size: '120', system: 'economy' },
      'option_conflict',
      { field: 'options.size' },
    ],
    ['copies differ from quantity', 'flyers-a5', 250, { copies: 500 }, 'copies_mismatch', { field: 'options.copies' }],
    [
      'copies as a different string',
      'business-cards',
      250,
      { copies: '100' },
      'copies_mismatch',
      { field: 'options.copies' },
    ],
    ['copies on a piece product', 'posters', 3, { copies: 2 }, 'copies_mismatch', { field: 'options.copies' }],
    [
      'copies that are not a number',
      'round-stickers',
      250,
      { copies: 'all' },
      'copies_mismatch',
      { field: 'options.copies' },
    ],
    ['run that does not exist', 'flyers-a5', 300, {}, 'run_unavailable', { field: 'quantity', nearestQuantity: 250 }],
    [
      'run not made with spot UV',
      'business-cards',
      100,
      { paper: 'mc400', finish: 'spot-uv' },
      'run_unavailable',
      { field: 'quantity', nearestQuantity: 250 },
    ],
    [
      'run not made in clear vinyl',
      'round-stickers',
      5000,
      { material: 'vinyl-clear' },
      'run_unavailable',
      { field: 'quantity', nearestQuantity: 2500, allowedValues: [250, 500, 1000, 2500] },
    ],
    [
      'laminated run below 250',
      'flyers-a4',
      50,
      { paper: 'mc170', finish: 'matt-laminate' },
      'run_unavailable',
      { field: 'quantity', nearestQuantity: 250 },
    ],
    [
      'above the maximum',
      'posters',
      501,
      {},
      'quantity_out_of_range',
      { field: 'quantity', nearestQuantity: 500, min: 1, max: 500 },
    ],
    ['zero', 'roll-up-banners', 0, {}, 'quantity_out_of_range', { field: 'quantity', nearestQuantity: 1 }],
    [
      'above the maximum',
      'canvas-prints',
      101,
      {},
      'quantity_out_of_range',
      { field: 'quantity', nearestQuantity: 100 },
    ],
    ['not a whole number', 'pvc-banners', 2.5, {}, 'quantity_out_of_range', { field: 'quantity' }],
    [
      'C4 with a window',
      'envelopes',
      250,
      { size: 'c4', window: 'window-left' },
      'unpriceable_configuration',
      { field: 'options.size' },
    ],
    [
      'rounded recycled board',
      'business-cards',
      250,
      { paper: 'recycled300', corners: 'rounded' },
      'unpriceable_configuration',
      { field: 'options.paper' },
    ],
    [
      'eyelets every 50 cm on a small banner',
      'pvc-banners',
      2,
      { size: '100x50', eyelets: 'every50' },
      'unpriceable_configuration',
      { field: 'options.size' },
    ],
    [
      'single-sided uncoated',
      'flyers-a5',
      500,
      { paper: 'uncoated120', sides: '4/0' },
      'unpriceable_configuration',
      { field: 'options.paper' },
    ],
  ];
  for (const [what, id, quantity, options, code, expected] of table) {
    it(`${id}: ${what} -> ${code}`, () => {
      const found = problems(id, quantity, options);
      const p = found.find((x) => x.code === code);
      expect(p, JSON.stringify(found)).to.exist;
      expect(p).to.deep.include({ line: 2, ...expected });
      expect(p!.message).to.be.a('string').and.not.empty;
    });
  }

  it('covers every 422 cause on at least three products', () => {
    const products = new Map<string, Set<string>>();
    for (const [, id, , , code] of table) products.set(code, (products.get(code) ?? new Set()).add(id));
    for (const [code, ids] of products) expect(ids.size, code).to.be.at.least(3);
    expect([...products.keys()]).to.have.members([
      'invalid_options',
      'invalid_option_value',
      'option_conflict',
      'copies_mismatch',
      'run_unavailable',
      'quantity_out_of_range',
      'unpriceable_configuration',
    ]);
  });

  it('names both options of a conflict with their compatible values', () => {
    const [p] = problems('flyers-a5', 250, { paper: 'mc90', finish: 'gloss-laminate' });
    expect(p!.conflicts).to.deep.equal([
      { option: 'paper', value: 'mc90', compatibleValues: ['mc170', 'mc250'] },
      { option: 'finish', value: 'gloss-laminate', compatibleValues: ['none'] },
    ]);
  });

  it('says which side of a conflict was a default, and never swaps the paper behind the customer’s back', () => {
    const [p] = problems('flyers-a5', 250, { finish: 'matt-laminate' });
    expect(p).to.include({ code: 'option_conflict', field: 'options.finish' });
    expect(p!.message).to.contain('paper=mc135 (default)');
  });

  it('names the options of an unpriceable combination with the values that can be priced', () => {
    const [p] = problems('envelopes', 250, { size: 'c4', window: 'window-left' });
    expect(p!.conflicts).to.deep.equal([
      { option: 'size', value: 'c4', compatibleValues: ['dl', 'c5'] },
      { option: 'window', value: 'window-left', compatibleValues: ['none'] },
    ]);
  });

  it('reports every problem of a line at once, in a stable order', () => {
    const found = problems('flyers-a5', 300, { colour: 'red', paper: 'mc999', copies: 12 });
    expect(found.map((p) => p.code)).to.deep.equal([
      'invalid_options',
      'invalid_option_value',
      'copies_mismatch',
      'run_unavailable',
    ]);
    const more = problems('business-cards', 100, { paper: 'recycled300', corners: 'rounded', finish: 'spot-uv' });
    expect(more.map((p) => p.code)).to.deep.equal(['option_conflict', 'run_unavailable', 'unpriceable_configuration']);
  });

  it('does not judge rules on a value that was refused', () => {
    expect(problems('flyers-a5', 250, { paper: 'mc999', finish: 'matt-laminate' }).map((p) => p.code)).to.deep.equal([
      'invalid_option_value',
    ]);
  });

  it('never prices another run: a wrong run yields no options at all', () => {
    const r = resolveConfiguration(product('flyers-a5'), { quantity: 999 }, 0);
    expect(r.ok).to.equal(false);
    expect(r).not.to.have.property('options');
  });

  it('reports the bigger run on a tie, so the customer is never short of pieces', () => {
    expect(problems('flyers-a5', 175, {})[0]).to.include({ code: 'run_unavailable', nearestQuantity: 250 });
  });

  it('adds defaults, accepts copies equal to quantity without keeping it, and derives the automatic options', () => {
    const r = resolveConfiguration(
      product('flyers-a5'),
      { quantity: 5000, options: { copies: 5000, sides: '4/0' } },
      0,
    );
    expect(r).to.deep.equal({
      ok: true,
      options: { size: 'a5', paper: 'mc135', sides: '4/0', finish: 'none' },
      derivedOptions: { printProcess: 'offset', sheetFormat: 'B2', bundling: 'per 250', packaging: 'box' },
    });
    const asString = resolveConfiguration(product('flyers-a5'), { quantity: 100, options: { copies: '100' } }, 0);
    expect(asString.ok && asString.derivedOptions.printProcess).to.equal('digital');
  });

  it('derives automatic options from the configuration as well as the quantity', () => {
    const heavy = resolveConfiguration(product('flyers-a5'), { quantity: 500, options: { paper: 'mc250' } }, 0);
    expect(heavy.ok && heavy.derivedOptions.bundling).to.equal('per 100');
    const uv = resolveConfiguration(
      product('business-cards'),
      { quantity: 250, options: { paper: 'mc400', finish: 'spot-uv' } },
      0,
    );
    expect(uv.ok && uv.derivedOptions.printProcess).to.equal('offset + UV spot varnish');
    const a3 = resolveConfiguration(product('posters'), { quantity: 30, options: { size: 'a3' } }, 0);
    expect(a3.ok && a3.derivedOptions).to.deep.equal({
      printProcess: 'digital (sheet-fed)',
      sheetFormat: 'SRA3',
      bundling: 'per 25',
      packaging: 'flat carton',
    });
  });

  it('normalises a number sent for a value to the catalogue’s string', () => {
    const r = resolveConfiguration(product('roll-up-banners'), { quantity: 1, options: { size: 100 } }, 0);
    expect(r.ok && r.options).to.deep.equal({ size: '100', system: 'economy' });
  });

  describe('posters: the starting configuration is adjusted by availability (spec option rule 4)', () => {
    it('starts on satin 170 g: the preferred premium satin is not available in the default A2', () => {
      expect(product('posters').options.find((o) => o.key === 'paper')!.default).to.equal('satin250');
      const r = resolveConfiguration(product('posters'), { quantity: 1 }, 0);
      expect(r.ok && r.options).to.deep.equal({ size: 'a2', paper: 'satin170' });
    });

    it('keeps the preferred paper where it is available (A3)', () => {
      const r = resolveConfiguration(product('posters'), { quantity: 1, options: { size: 'a3' } }, 0);
      expect(r.ok && r.options).to.deep.equal({ size: 'a3', paper: 'satin250' });
    });

    it('moves on to the first available paper in A0, where neither satin is made', () => {
      const r = resolveConfiguration(product('posters'), { quantity: 1, options: { size: 'a0' } }, 0);
      expect(r.ok && r.options).to.deep.equal({ size: 'a0', paper: 'photo200' });
    });

    it('moves an omitted size to one the chosen paper is made in', () => {
      const r = resolveConfiguration(product('posters'), { quantity: 1, options: { paper: 'satin250' } }, 0);
      expect(r.ok && r.options).to.deep.equal({ size: 'a3', paper: 'satin250' });
    });

    it('never moves a value the customer sent: an unavailable explicit choice is a conflict', () => {
      const [p] = problems('posters', 1, { size: 'a2', paper: 'satin250' });
      expect(p).to.deep.include({ code: 'option_conflict', field: 'options.paper' });
      expect(p!.conflicts).to.deep.include({
        option: 'paper',
        value: 'satin250',
        compatibleValues: ['satin170', 'photo200', 'blueback115'],
      });
    });

    it('moves canvas frames the same way: 80 x 120 cm only comes on the 4 cm frame', () => {
      const r = resolveConfiguration(product('canvas-prints'), { quantity: 1, options: { size: '80x120' } }, 0);
      expect(r.ok && r.options).to.deep.equal({ size: '80x120', frame: '4cm' });
    });
  });

  it('checks a reseller product’s options without a quantity', () => {
    const r = resolveConfiguration(product('business-cards'), { options: { finish: 'soft-touch' } }, 0);
    expect(r.ok && r.options).to.deep.equal({ paper: 'mc350', sides: '4/4', finish: 'soft-touch', corners: 'square' });
  });
});

describe('resolved configurations are kept per product and input', () => {
  it('answers the same input again with the same frozen result', () => {
    const first = resolveConfiguration(product('flyers-a5'), { quantity: 500, options: { paper: 'mc170' } }, 0);
    const again = resolveConfiguration(product('flyers-a5'), { quantity: 500, options: { paper: 'mc170' } }, 3);
    expect(again).to.equal(first);
    if (!again.ok) throw new Error('expected a configuration');
    expect(Object.isFrozen(again.options)).to.equal(true);
    expect(() => ((again.options as Record<string, string>).paper = 'mc90')).to.throw(TypeError);
  });

  it('never answers another input from the cache: keys, values and their types are told apart', () => {
    const cards = product('business-cards');
    expect(
      resolveConfiguration(cards, { quantity: 250, options: { paper: 'mc400', finish: 'soft-touch' } }, 0).ok,
    ).to.equal(true);
    // The same characters, cut differently between keys and values, are other inputs.
    const shifted = resolveConfiguration(
      cards,
      { quantity: 250, options: { 'paper|5:smc400|6:finish': 'soft-touch' } },
      0,
    );
    expect(shifted.ok).to.equal(false);
    const glued = resolveConfiguration(cards, { quantity: 250, options: { paper: 'mc400|6:finish10:ssoft-touch' } }, 0);
    expect(glued.ok).to.equal(false);
    // Another quantity, or no quantity, is another input too.
    expect(
      resolveConfiguration(cards, { quantity: 251, options: { paper: 'mc400', finish: 'soft-touch' } }, 0).ok,
    ).to.equal(false);
  });

  it('keeps no refusal: each problem names the line that sent it', () => {
    const bad = { paper: 'mc999' };
    expect(problems('flyers-a5', 500, bad)[0]!.line).to.equal(2);
    const again = resolveConfiguration(product('flyers-a5'), { quantity: 500, options: bad }, 7);
    expect(!again.ok && again.problems[0]!.line).to.equal(7);
  });
});
