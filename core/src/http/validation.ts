import type { z } from 'zod';
import { ApiError, type ErrorDetail } from './api-error.ts';

/** Turns zod issues into the spec's `error.details`: one entry per problem, with `line` for order/quote lines. */
export function issuesToDetails(issues: z.core.$ZodIssue[], where: 'body' | 'query' | 'path' | 'header'): ErrorDetail[] {
  return issues.map((issue) => {
    const path = issue.path.map(String);
    const detail: ErrorDetail = { field: fieldName(path, where), code: issue.code, message: issue.message };
    if (path[0] === 'lines' && path[1] !== undefined && /^\d+$/.test(path[1])) {
      detail.line = Number(path[1]);
    }
    if (issue.code === 'invalid_value') detail.allowedValues = issue.values.map((v) => String(v));
    // A discriminated union's unknown tag (`platform` of POST /stores): name the ones it takes.
    if (issue.code === 'invalid_union' && 'options' in issue && issue.options) detail.allowedValues = issue.options.map((v) => String(v));
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
export function parseOrThrow<T>(schema: z.ZodType<T> | undefined, input: unknown, where: 'body' | 'query' | 'path' | 'header'): T {
  if (!schema) return input as T;
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const details = issuesToDetails(result.error.issues, where);
  const first = details[0];
  const message =
    where === 'body'
      ? `The request body is invalid: ${first?.field ?? 'body'}: ${first?.message ?? 'invalid'}`
      : `Invalid ${where} parameter ${first?.field ?? ''}: ${first?.message ?? 'invalid'}`;
  throw new ApiError(400, 'invalid_request', message, details);
}
