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

describe('option and quantity rules (spec §4), every 422 cause on several products', () => {
  const table: Array<[string, string, number, Record<string, unknown>, string, Record<string, unknown>]> = [
    ['unknown key', 'flyers-a5', 250, { colour: 'red' }, 'invalid_options', { field: 'options.colour', allowedKeys: ['size', 'paper', 'sides', 'finish'] }],
    ['automatic key', 'business-cards', 250, { printProcess: 'offset' }, 'invalid_options', { field: 'options.printProcess', allowedKeys: ['paper', 'sides', 'finish', 'corners'] }],
    ['automatic key', 'posters', 2, { packaging: 'box' }, 'invalid_options', { field: 'options.packaging' }],
    ['invalid value', 'flyers-a5', 250, { paper: 'mc999' }, 'invalid_option_value', { field: 'options.paper', allowedValues: ['mc90', 'mc135', 'mc170', 'mc250', 'uncoated120'] }],
    ['invalid value', 'posters', 1, { size: 'a9' }, 'invalid_option_value', { field: 'options.size' }],
    ['invalid value', 'envelopes', 250, { window: true }, 'invalid_option_value', { field: 'options.window' }],
    ['conflict: laminate on thin paper', 'flyers-a5', 250, { paper: 'mc90', finish: 'matt-laminate' }, 'option_conflict', { field: 'options.finish' }],
    ['conflict: spot UV on 350 g', 'business-cards', 250, { paper: 'mc350', finish: 'spot-uv' }, 'option_conflict', { field: 'options.paper' }],
    ['conflict: satin in A0', 'posters', 1, { size: 'a0', paper: 'satin170' }, 'option_conflict', { field: 'options.paper' }],
    ['copies mismatch', 'flyers-a5', 250, { copies: 500 }, 'copies_mismatch', { field: 'options.copies' }],
    ['copies mismatch', 'business-cards', 250, { copies: '100' }, 'copies_mismatch', { field: 'options.copies' }],
    ['run that does not exist', 'flyers-a5', 300, {}, 'run_unavailable', { field: 'quantity', nearestQuantity: 250 }],
    ['run not made for the configuration', 'business-cards', 100, { paper: 'mc400', finish: 'spot-uv' }, 'run_unavailable', { field: 'quantity', nearestQuantity: 250 }],
    ['run not made for the configuration', 'round-stickers', 5000, { material: 'vinyl-clear' }, 'run_unavailable', { field: 'quantity', nearestQuantity: 2500 }],
    ['quantity out of range', 'posters', 501, {}, 'quantity_out_of_range', { field: 'quantity', nearestQuantity: 500 }],
    ['quantity out of range', 'roll-up-banners', 0, {}, 'quantity_out_of_range', { field: 'quantity', nearestQuantity: 1 }],
    ['unpriceable', 'envelopes', 250, { size: 'c4', window: 'window-left' }, 'unpriceable_configuration', {}],
    ['unpriceable', 'business-cards', 250, { paper: 'recycled300', corners: 'rounded' }, 'unpriceable_configuration', {}],
    ['unpriceable', 'pvc-banners', 2, { size: '100x50', eyelets: 'every50' }, 'unpriceable_configuration', {}],
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

  it('names both options of a conflict with their compatible values', () => {
    const [p] = problems('flyers-a5', 250, { paper: 'mc90', finish: 'gloss-laminate' });
    expect(p!.conflicts).to.deep.equal([
      { option: 'paper', value: 'mc90', compatibleValues: ['mc170', 'mc250'] },
      { option: 'finish', value: 'gloss-laminate', compatibleValues: ['none'] },
    ]);
  });

  it('reports every problem of a line at once', () => {
    const found = problems('flyers-a5', 300, { colour: 'red', paper: 'mc999', copies: 12 });
    expect(found.map((p) => p.code).sort()).to.deep.equal(['copies_mismatch', 'invalid_option_value', 'invalid_options', 'run_unavailable']);
  });

  it('never prices another run: a wrong run yields no options at all', () => {
    const r = resolveConfiguration(product('flyers-a5'), { quantity: 999 }, 0);
    expect(r.ok).to.equal(false);
    expect(r).not.to.have.property('options');
  });

  it('adds defaults, accepts copies equal to quantity, and sets the automatic options', () => {
    const r = resolveConfiguration(product('flyers-a5'), { quantity: 5000, options: { copies: 5000, sides: '4/0' } }, 0);
    expect(r).to.deep.equal({
      ok: true,
      options: { size: 'a5', paper: 'mc135', sides: '4/0', finish: 'none' },
      derivedOptions: { printProcess: 'offset', sheetFormat: 'B2', bundling: 'per 250', packaging: 'box' },
    });
    const small = resolveConfiguration(product('flyers-a5'), { quantity: 100 }, 0);
    expect(small.ok && small.derivedOptions.printProcess).to.equal('digital');
  });

  it('moves a poster default the chosen size rules out (A0 has no satin paper), like the product page', () => {
    const r = resolveConfiguration(product('posters'), { quantity: 1, options: { size: 'a0' } }, 0);
    expect(r.ok && r.options).to.deep.equal({ size: 'a0', paper: 'photo200' });
    const a2 = resolveConfiguration(product('posters'), { quantity: 1 }, 0);
    expect(a2.ok && a2.options).to.deep.equal({ size: 'a2', paper: 'satin170' });
  });

  it('resolves its own answer again unchanged, for every product', () => {
    for (const p of catalog.products) {
      const quantity = p.quantity.pricedBy === 'copies' ? p.quantity.runs[p.quantity.runs.length - 1]! : p.quantity.min;
      const first = resolveConfiguration(p, { quantity }, 0);
      if (!first.ok) continue;
      expect(resolveConfiguration(p, { quantity, options: first.options }, 0), p.id).to.deep.equal(first);
    }
  });
});
