import { Decimal } from 'decimal.js';
import type { z } from 'zod';
import type { Condition, Product } from './catalog-schema.ts';
import { availableRuns, brokenConstraints, startingConfiguration, unpriceableRules } from './option-rules.ts';

type Path = Array<string | number>;
type Report = (path: Path, message: string) => void;

/**
 * Cross-field rules of one product file, run by the zod schema so that a broken catalogue is
 * refused at start with the path of the bad field: defaults among the allowed values, rules
 * naming existing options and values, consistent run tables and volume tiers, four different
 * slugs, a starting configuration the partner offers and can price.
 */
export function checkProduct(p: Product, ctx: z.RefinementCtx): void {
  let issues = 0;
  const report: Report = (path, message) => {
    issues += 1;
    ctx.addIssue({ code: 'custom', path, message });
  };
  checkOptions(p, report);
  const values = new Map(p.options.map((o) => [o.key, new Set(o.values.map((v) => v.value))]));
  const checkCondition = (c: Condition, path: Path) => {
    for (const [key, listed] of Object.entries(c)) {
      const allowed = values.get(key);
      if (!allowed) report([...path, key], `names an unknown option '${key}'`);
      else
        for (const v of listed)
          if (!allowed.has(v)) report([...path, key], `names an unknown value '${v}' of '${key}'`);
    }
  };
  p.constraints.forEach((c, i) => {
    checkCondition(c.when, ['constraints', i, 'when']);
    checkCondition(c.forbid, ['constraints', i, 'forbid']);
  });
  p.runRules.forEach((r, i) => checkCondition(r.when, ['runRules', i, 'when']));
  p.unpriceable.forEach((r, i) => checkCondition(r.when, ['unpriceable', i, 'when']));
  checkAutomatic(p, report, checkCondition);
  if (p.quantity.pricedBy === 'copies') checkRuns(p, p.quantity.runs, report);
  else checkTiers(p, p.quantity, report);
  checkSlugs(p, report);
  checkTrimSizes(p, values, report);
  // Only a sound product has a meaningful starting configuration.
  if (issues === 0) checkStartingConfiguration(p, report);
}

function checkOptions(p: Product, report: Report): void {
  const keys = new Set<string>();
  p.options.forEach((o, i) => {
    if (keys.has(o.key)) report(['options', i, 'key'], `option '${o.key}' is listed twice`);
    keys.add(o.key);
    if (!o.values.some((v) => v.value === o.default))
      report(['options', i, 'default'], `default '${o.default}' is not one of the values of '${o.key}'`);
    if (new Set(o.values.map((v) => v.value)).size !== o.values.length)
      report(['options', i, 'values'], `'${o.key}' lists a value twice`);
  });
}

function checkAutomatic(p: Product, report: Report, checkCondition: (c: Condition, path: Path) => void): void {
  const customer = new Set(p.options.map((o) => o.key));
  const seen = new Set<string>();
  p.automatic.forEach((a, i) => {
    if (customer.has(a.key)) report(['automatic', i, 'key'], `'${a.key}' is both a customer and an automatic option`);
    if (seen.has(a.key)) report(['automatic', i, 'key'], `automatic option '${a.key}' is listed twice`);
    seen.add(a.key);
    a.rules.forEach((r, j) => {
      const last = j === a.rules.length - 1;
      if (last && r.when)
        report(
          ['automatic', i, 'rules', j, 'when'],
          'the last rule must have no condition, so every configuration gets a value',
        );
      if (!last && !r.when)
        report(
          ['automatic', i, 'rules', j],
          'only the last rule may be unconditional (the rules after it never apply)',
        );
      if (r.when?.options) checkCondition(r.when.options, ['automatic', i, 'rules', j, 'when', 'options']);
      if (
        r.when?.minQuantity !== undefined &&
        r.when.maxQuantity !== undefined &&
        r.when.minQuantity > r.when.maxQuantity
      ) {
        report(['automatic', i, 'rules', j, 'when'], 'minQuantity is above maxQuantity');
      }
    });
  });
}

function checkRuns(p: Product, runs: number[], report: Report): void {
  runs.forEach((run, i) => {
    if (i > 0 && run <= runs[i - 1]!) report(['quantity', 'runs', i], 'runs must be listed once each, smallest first');
  });
  if (!p.runPrices) {
    report(['runPrices'], 'run-priced products need runPrices');
    return;
  }
  const prices = p.runPrices;
  for (const run of runs)
    if (prices[String(run)] === undefined) report(['runPrices', String(run)], `no price for the run of ${run}`);
  for (const key of Object.keys(prices))
    if (!runs.includes(Number(key))) report(['runPrices', key], `priced run ${key} is not in quantity.runs`);
  // A bigger run never costs less in total, and never more per piece: a price table typo shows here.
  runs.forEach((run, i) => {
    const prev = runs[i - 1];
    const price = prices[String(run)];
    const prevPrice = prev === undefined ? undefined : prices[String(prev)];
    if (prev === undefined || price === undefined || prevPrice === undefined) return;
    if (new Decimal(price).lt(prevPrice))
      report(['runPrices', String(run)], `the run of ${run} costs less than the run of ${prev}`);
    if (new Decimal(price).div(run).gt(new Decimal(prevPrice).div(prev)))
      report(['runPrices', String(run)], `the run of ${run} costs more per piece than the run of ${prev}`);
  });
  p.runRules.forEach((r, i) =>
    r.runs.forEach((run, j) => {
      if (!runs.includes(run)) report(['runRules', i, 'runs', j], `run ${run} is not in quantity.runs`);
    }),
  );
}

function checkTiers(
  p: Product,
  q: { min: number; max: number; tiers: Array<{ from: number; unitCents: string }> },
  report: Report,
): void {
  if (p.runPrices) report(['runPrices'], 'piece-priced products have volume tiers, not runPrices');
  if (p.runRules.length > 0) report(['runRules'], 'piece-priced products have no runs');
  if (q.min > q.max) report(['quantity', 'min'], 'min is above max');
  if (q.tiers[0]?.from !== q.min) report(['quantity', 'tiers', 0, 'from'], 'the first tier must start at quantity.min');
  q.tiers.forEach((t, i) => {
    const prev = q.tiers[i - 1];
    if (t.from > q.max) report(['quantity', 'tiers', i, 'from'], 'tier starts above quantity.max');
    if (prev && t.from <= prev.from) report(['quantity', 'tiers', i, 'from'], 'tiers must start at rising quantities');
    if (prev && new Decimal(t.unitCents).gt(prev.unitCents))
      report(['quantity', 'tiers', i, 'unitCents'], 'a higher volume tier must not cost more per piece');
  });
}

function checkSlugs(p: Product, report: Report): void {
  const seen = new Map<string, string>();
  for (const [lang, s] of Object.entries(p.slugs)) {
    const other = seen.get(s);
    if (other) report(['slugs', lang], `slug '${s}' is also the ${other} slug: slugs differ per language`);
    seen.set(s, lang);
  }
}

function checkTrimSizes(p: Product, values: Map<string, Set<string>>, report: Report): void {
  const by = p.fileRequirements.trimSizeMmByOption;
  if (!by) return;
  const path = ['fileRequirements', 'trimSizeMmByOption'];
  const allowed = values.get(by.option);
  if (!allowed) return report([...path, 'option'], `names an unknown option '${by.option}'`);
  for (const v of allowed)
    if (!by.values[v]) report([...path, 'values', v], `no trim size for '${by.option}' = '${v}'`);
  for (const v of Object.keys(by.values))
    if (!allowed.has(v)) report([...path, 'values', v], `'${v}' is not a value of '${by.option}'`);
}

/** The page's starting configuration must be one the partner offers, prices and can make. */
function checkStartingConfiguration(p: Product, report: Report): void {
  const start = startingConfiguration(p);
  const shown = JSON.stringify(start);
  for (const c of brokenConstraints(p, start)) {
    report(
      ['constraints', p.constraints.indexOf(c)],
      `the starting configuration ${shown} breaks this rule; mark it availability or change a default`,
    );
  }
  for (const r of unpriceableRules(p, start))
    report(['unpriceable', p.unpriceable.indexOf(r)], `the starting configuration ${shown} cannot be priced`);
  if (p.quantity.pricedBy === 'copies' && availableRuns(p, start).length === 0)
    report(['runRules'], `no run can be made for the starting configuration ${shown}`);
  const by = p.fileRequirements.trimSizeMmByOption;
  const startSize = by ? by.values[start[by.option] ?? ''] : undefined;
  const trim = p.fileRequirements.trimSizeMm;
  if (startSize && (startSize.width !== trim.width || startSize.height !== trim.height)) {
    report(
      ['fileRequirements', 'trimSizeMm'],
      `must be the trim size of the starting configuration (${startSize.width} x ${startSize.height} mm)`,
    );
  }
}
