import type { z } from 'zod';
import { Refusal, type ErrorDetail } from '../kernel/refusal.ts';
import { issueSentence } from './plain-issues.ts';

/** Turns zod issues into the spec's `error.details`: one entry per problem, with `line` for order/quote lines. */
export function issuesToDetails(
  issues: z.core.$ZodIssue[],
  where: 'body' | 'query' | 'path' | 'header',
): ErrorDetail[] {
  return issues.map((issue) => {
    const path = issue.path.map(String);
    const field = fieldName(path, where);
    const detail: ErrorDetail = { field, code: issue.code, message: issueSentence(field, issue) };
    if (path[0] === 'lines' && path[1] !== undefined && /^\d+$/.test(path[1])) {
      detail.line = Number(path[1]);
    }
    if (issue.code === 'invalid_value') detail.allowedValues = issue.values.map((v) => String(v));
    // A discriminated union's unknown tag (`platform` of POST /stores): name the ones it takes.
    if (issue.code === 'invalid_union' && 'options' in issue && issue.options)
      detail.allowedValues = issue.options.map((v) => String(v));
    if (issue.code === 'unrecognized_keys') detail.allowedKeys = undefined;
    return stripUndefined(detail);
  });
}

/** `lines[0].options.paper`: how error details name a field (`where` for the whole body, query or path). */
export function fieldName(path: string[], where: string): string {
  if (path.length === 0) return where;
  return path.reduce((acc, part) => (/^\d+$/.test(part) ? `${acc}[${part}]` : acc ? `${acc}.${part}` : part), '');
}

function stripUndefined<T extends object>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}

/** Parses `input` with `schema`, or throws 400 invalid_request naming every problem. */
export function parseOrThrow<T>(
  schema: z.ZodType<T> | undefined,
  input: unknown,
  where: 'body' | 'query' | 'path' | 'header',
): T {
  if (!schema) return input as T;
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  throw invalidRequest(result.error.issues, where);
}

/**
 * 400 invalid_request for zod issues: the first problem in words (`The request body is invalid:
 * recipient.postalCode is required`, and how many more), every one in `details`.
 */
export function invalidRequest(
  issues: z.core.$ZodIssue[],
  where: 'body' | 'query' | 'path' | 'header',
  what?: string,
): Refusal {
  const details = issuesToDetails(issues, where);
  const first = details[0]?.message ?? 'is not valid';
  const more =
    details.length > 1 ? ` (and ${details.length - 1} more problem${details.length > 2 ? 's' : ''}, in details)` : '';
  const lead = what ?? (where === 'body' ? 'The request body is invalid' : `Invalid ${where} parameter`);
  return new Refusal('invalid_request', `${lead}: ${first}${more}`, details);
}
