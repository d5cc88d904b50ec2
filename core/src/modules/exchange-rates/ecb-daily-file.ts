/** One day's euro reference rates, as the ECB's daily file gives them. */
export interface EcbRates {
  /** The day the rates were set (`YYYY-MM-DD`). */
  date: string;
  /** Currency (ISO 4217) -> units of it one euro buys, as the file wrote the number. */
  rates: Map<string, string>;
}

export class EcbFileError extends Error {
  override name = 'EcbFileError';
}

const DAY = /<Cube\s+time\s*=\s*(['"])(\d{4}-\d{2}-\d{2})\1\s*>([\s\S]*?)<\/Cube>/;
const RATE = /<Cube\s+currency\s*=\s*(['"])([^'"]*)\1\s+rate\s*=\s*(['"])([^'"]*)\3\s*\/>/g;

/**
 * Reads the ECB's `eurofxref-daily.xml` (its `Cube time` element and the `Cube currency rate`
 * elements in it). Anything else (no day, a malformed date, currency or rate, no rate at all) is
 * refused whole: a rate is never guessed nor kept from a file we could not read.
 *
 * @example
 * parseEcbDailyFile(`<Cube><Cube time='2026-11-27'><Cube currency='GBP' rate='0.8312'/></Cube></Cube>`);
 * // { date: '2026-11-27', rates: Map { 'GBP' => '0.8312' } }
 */
export function parseEcbDailyFile(xml: string): EcbRates {
  const day = DAY.exec(xml);
  if (!day) throw new EcbFileError('no <Cube time="..."> element');
  const date = day[2]!;
  if (
    Number.isNaN(Date.parse(`${date}T00:00:00Z`)) ||
    new Date(`${date}T00:00:00Z`).toISOString().slice(0, 10) !== date
  )
    throw new EcbFileError(`not a date: ${date}`);
  const rates = new Map<string, string>();
  for (const m of day[3]!.matchAll(RATE)) {
    const currency = m[2]!;
    const rate = m[4]!;
    if (!/^[A-Z]{3}$/.test(currency)) throw new EcbFileError(`not a currency: ${currency}`);
    if (!/^\d{1,12}(\.\d{1,12})?$/.test(rate) || !/[1-9]/.test(rate))
      throw new EcbFileError(`not a rate for ${currency}: ${rate}`);
    rates.set(currency, rate);
  }
  if (rates.size === 0) throw new EcbFileError(`no rate for ${date}`);
  return { date, rates };
}
