/**
 * How the CLI shows an answer of the back-office API to a person: a list as a table, one record
 * as `field  value` lines, an error as its message and each problem. `--json` prints the answer
 * as it came instead (for scripts and jq).
 */
const MAX_COLUMNS = 8;
const MAX_CELL = 40;

type Row = Record<string, unknown>;

const isScalar = (v: unknown): boolean => v === null || ['string', 'number', 'boolean'].includes(typeof v);

function cell(v: unknown, max = MAX_CELL): string {
  const text = v === null || v === undefined ? '-' : typeof v === 'string' ? v : JSON.stringify(v);
  const line = text.replace(/\s+/g, ' ');
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

/** A list of records as an aligned table of their plain (not nested) fields. */
export function table(rows: Row[]): string {
  if (rows.length === 0) return '(none)';
  const columns: string[] = [];
  for (const row of rows) {
    for (const [k, v] of Object.entries(row)) {
      if (!columns.includes(k) && v !== null && isScalar(v)) columns.push(k);
    }
  }
  const shown = columns.slice(0, MAX_COLUMNS);
  const cells = rows.map((r) => shown.map((c) => cell(r[c])));
  const widths = shown.map((c, i) => Math.max(c.length, ...cells.map((r) => r[i]!.length)));
  const line = (values: string[]) =>
    values
      .map((v, i) => v.padEnd(widths[i]!))
      .join('  ')
      .trimEnd();
  return [line(shown), line(widths.map((w) => '-'.repeat(w))), ...cells.map(line)].join('\n');
}

/** One record as `field  value` lines; nested values as compact JSON. */
export function record(value: Row): string {
  const width = Math.max(...Object.keys(value).map((k) => k.length), 0);
  return Object.entries(value)
    .map(([k, v]) => `${k.padEnd(width)}  ${cell(v, 100)}`)
    .join('\n');
}

/** An answer of the back-office API, for a person. */
export function readable(body: unknown): string {
  if (!body || typeof body !== 'object') return cell(body, 1000);
  const { data, error, nextCursor } = body as {
    data?: unknown;
    error?: { code?: string; message?: string; details?: Array<{ field?: string; message?: string; code?: string }> };
    nextCursor?: string | null;
  };
  if (error) {
    const problems = (error.details ?? [])
      .filter((d) => d.message && d.message !== error.message)
      .map((d) => `  - ${d.message}`);
    return [`error (${error.code ?? 'unknown'}): ${error.message ?? ''}`, ...problems].join('\n');
  }
  if (Array.isArray(data)) {
    const more = nextCursor ? `\n\nmore: add --cursor ${nextCursor}` : '';
    return `${table(data.filter((r): r is Row => !!r && typeof r === 'object'))}${more}`;
  }
  if (data && typeof data === 'object') return record(data as Row);
  return record(body as Row);
}
