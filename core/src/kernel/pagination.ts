import { createHmac } from 'node:crypto';
import { sql, type SelectQueryBuilder, type SqlBool } from 'kysely';
import { z } from 'zod';
import { constantTimeEqual } from '../infra/crypto.ts';
import { invalidRequest } from './refusal.ts';

export const DEFAULT_LIMIT = 25;
export const MAX_LIMIT = 100;

/** The `limit` and `cursor` query parameters of every list endpoint. */
export const pageQueryShape = {
  limit: z
    .string()
    .regex(/^\d+$/, 'limit must be a whole number from 1 to 100')
    // Capped like any limit above 100; echoed as requestedLimit, which must stay an exact integer.
    .transform((digits) => Math.min(Number(digits), Number.MAX_SAFE_INTEGER))
    .refine((n) => n >= 1, 'limit must be at least 1')
    .optional()
    .meta({
      description: `Page size, 1-${MAX_LIMIT}, default ${DEFAULT_LIMIT}; a larger value is capped to ${MAX_LIMIT}.`,
    }),
  cursor: z.string().min(1).max(512).optional().meta({ description: 'The nextCursor of the previous page.' }),
};

export interface Page {
  limit: number;
  requestedLimit: number;
  limitCapped: boolean;
  /** The position after which this page starts (from the cursor), or undefined for the first page. */
  after: Array<string | number> | undefined;
}

/** Opaque keyset cursors, signed so that a tampered cursor is refused rather than misread. */
export class CursorCodec {
  readonly #key: Buffer;
  constructor(key: Buffer) {
    this.#key = key;
  }

  encode(list: string, position: Array<string | number>): string {
    const payload = Buffer.from(JSON.stringify([list, ...position])).toString('base64url');
    return `${payload}.${this.#sign(payload)}`;
  }

  decode(list: string, cursor: string): Array<string | number> {
    const [payload, signature] = cursor.split('.');
    const bad = invalidRequest('The cursor is not valid: pass the nextCursor of the previous page unchanged.', [
      { field: 'cursor', code: 'invalid_cursor' },
    ]);
    if (!payload || !signature || !constantTimeEqual(signature, this.#sign(payload))) throw bad;
    let parsed: unknown;
    try {
      parsed = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
    } catch {
      throw bad;
    }
    if (!Array.isArray(parsed) || parsed[0] !== list) throw bad;
    return parsed.slice(1) as Array<string | number>;
  }

  #sign(payload: string): string {
    return createHmac('sha256', this.#key).update(payload).digest('base64url').slice(0, 22);
  }
}

/** Reads limit and cursor for the list named `list` (a cursor of another list is refused). */
export function resolvePage(
  codec: CursorCodec,
  list: string,
  query: { limit?: number | undefined; cursor?: string | undefined },
): Page {
  const requestedLimit = query.limit ?? DEFAULT_LIMIT;
  return {
    limit: Math.min(requestedLimit, MAX_LIMIT),
    requestedLimit,
    limitCapped: requestedLimit > MAX_LIMIT,
    after: query.cursor ? codec.decode(list, query.cursor) : undefined,
  };
}

/**
 * The rows of a list page, newest first (by `created_at`, then `id`, both descending), from the page's position (the
 * cursor's `[createdAt, id]`), with one row more than the page holds: how listEnvelope knows a next page exists. `q`
 * selects from one table that has both columns.
 */
export function newestFirst<DB, TB extends keyof DB, O>(q: SelectQueryBuilder<DB, TB, O>, page: Page): Promise<O[]> {
  if (page.after) {
    const [createdAt, id] = page.after;
    q = q.where(sql<SqlBool>`(created_at, id) < (${new Date(String(createdAt))}, ${String(id)})`);
  }
  return q
    .orderBy(sql`created_at`, 'desc')
    .orderBy(sql`id`, 'desc')
    .limit(page.limit + 1)
    .execute();
}

export interface ListEnvelope<T> {
  data: T[];
  nextCursor: string | null;
  limit: number;
  maxLimit: number;
  limitCapped: boolean;
  requestedLimit: number;
}

/**
 * Builds the list envelope from rows fetched with `limit + 1` (the extra row only tells that a
 * next page exists).
 */
export function listEnvelope<R, T>(
  codec: CursorCodec,
  list: string,
  page: Page,
  rows: R[],
  positionOf: (row: R) => Array<string | number>,
  view: (row: R) => T,
): ListEnvelope<T> {
  const hasMore = rows.length > page.limit;
  const pageRows = hasMore ? rows.slice(0, page.limit) : rows;
  const last = pageRows[pageRows.length - 1];
  return {
    data: pageRows.map(view),
    nextCursor: hasMore && last !== undefined ? codec.encode(list, positionOf(last)) : null,
    limit: page.limit,
    maxLimit: MAX_LIMIT,
    limitCapped: page.limitCapped,
    requestedLimit: page.requestedLimit,
  };
}

/** The zod schema of a list envelope of `item`, for the OpenAPI description. */
export function listEnvelopeSchema<T extends z.ZodType>(item: T) {
  return z.object({
    data: z.array(item),
    nextCursor: z.string().nullable(),
    limit: z.number().int(),
    maxLimit: z.literal(MAX_LIMIT),
    limitCapped: z.boolean(),
    requestedLimit: z.number().int(),
  });
}
