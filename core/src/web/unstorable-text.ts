import { Refusal, type ErrorDetail } from '../kernel/refusal.ts';
import { fieldName } from './validation.ts';

/**
 * Text PostgreSQL cannot store, refused at the edge for every route: NUL (neither `text` nor
 * `jsonb` takes it) and a UTF-16 surrogate without its pair (no UTF-8 form: `jsonb` refuses
 * its `\ud800` escape, a `text` column would get U+FFFD instead). Left to the database, the
 * first is a 500 and the second silently changed data; both are the client's mistake.
 *
 * Runs on every request, so only the rare cases cost anything: a URL without `%00` (the only
 * way a URL carries a NUL; an encoded lone surrogate is not valid UTF-8 and never decodes to
 * one) passes on one `includes`, and a JSON body is walked once, each string checked by two
 * native scans (a one-byte string is well formed without looking at it).
 */

/** How deep a request body may nest: no request of ours needs more than a few levels. */
export const MAX_BODY_DEPTH = 32;

function problem(text: string): 'nul_character' | 'unpaired_surrogate' | undefined {
  if (text.includes('\u0000')) return 'nul_character';
  if (!text.isWellFormed()) return 'unpaired_surrogate';
  return undefined;
}

export const EXPLAIN = {
  nul_character: 'contains a NUL character (\\u0000), which cannot be stored',
  unpaired_surrogate: 'contains a UTF-16 surrogate without its pair (such as \\ud800), which is not valid Unicode',
} as const;

/**
 * The first string (value or key) in a parsed JSON body that cannot be stored, or a nesting too deep, as an error
 * detail.
 */
export function unstorableTextIn(body: unknown): ErrorDetail | undefined {
  const path: string[] = [];
  const found = walk(body, path, 0);
  if (!found) return undefined;
  const field = fieldName(path, 'body');
  if (found === 'too_deep')
    return { field, code: 'too_deep', message: `is nested deeper than ${MAX_BODY_DEPTH} levels` };
  return { field, code: found, message: EXPLAIN[found] };
}

/** Leaves `path` at the offending place. */
function walk(
  value: unknown,
  path: string[],
  depth: number,
): 'nul_character' | 'unpaired_surrogate' | 'too_deep' | undefined {
  if (typeof value === 'string') return problem(value);
  if (typeof value !== 'object' || value === null) return undefined;
  if (depth >= MAX_BODY_DEPTH) return 'too_deep';
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = walk(value[i], path, depth + 1);
      if (found) {
        path.unshift(String(i));
        return found;
      }
    }
    return undefined;
  }
  // JSON.parse makes plain objects: no inherited enumerable keys; an own `__proto__` key is
  // read as the own property it is.
  for (const key in value) {
    const found = problem(key) ?? walk((value as Record<string, unknown>)[key], path, depth + 1);
    if (found) {
      path.unshift(key);
      return found;
    }
  }
  return undefined;
}

/** The 400 for a body `unstorableTextIn` found something in. */
export function unstorableBody(detail: ErrorDetail): Refusal {
  return new Refusal('invalid_request', `The request body is invalid: ${detail.field}: ${detail.message}.`, [detail]);
}
