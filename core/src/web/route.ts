import type { Request, Response } from 'express';
import type { z } from 'zod';
import type { Logger } from '../infra/logger.ts';
import type { Scope } from '../kernel/scopes.ts';
import type { AuthContext } from '../kernel/auth-context.ts';

export type HttpMethod = 'get' | 'post' | 'put' | 'patch' | 'delete';

/** The caller a route expects: a reseller's API key, the back-office token, or anyone. */
export type RouteAuth = 'apiKey' | 'admin' | 'public';

export interface RouteContext<P, Q, B> {
  params: P;
  query: Q;
  body: B;
  /** Present on `auth: 'apiKey'` routes. */
  auth: AuthContext;
  headers: Request['headers'];
  requestId: string;
  log: Logger;
  req: Request;
  res: Response;
}

export interface Reply {
  status: number;
  body: unknown;
  /** A header given a list is sent once per value (Set-Cookie). */
  headers?: Record<string, string | string[]>;
  /** A plain-text body instead of `body` (a page a merchant's browser shows). */
  text?: string;
}

const serialized = new WeakMap<object, Buffer>();

/**
 * Marks a body that never changes (a catalogue view) so its JSON is produced and encoded once
 * and the bytes reused by every reply that sends it. The body is frozen: nobody may change what
 * other replies share.
 */
export function constantBody<T extends object>(body: T): T {
  if (!serialized.has(body)) serialized.set(Object.freeze(body), Buffer.from(JSON.stringify(body), 'utf8'));
  return body;
}

/** The JSON of a body: the encoded bytes of a `constantBody`, else its text. */
export function bodyJson(body: unknown): string | Buffer {
  return (typeof body === 'object' && body !== null && serialized.get(body)) || JSON.stringify(body);
}

export interface DocumentedError {
  status: number;
  code: string;
  description: string;
}

/**
 * One declaration per route: method, path (OpenAPI style, `/orders/{id}`), scope, request
 * and response schemas and the errors it can answer. Validation, the scope check and the
 * OpenAPI description all come from this object.
 */
export interface RouteSpec<P = unknown, Q = unknown, B = unknown> {
  method: HttpMethod;
  path: string;
  operationId: string;
  summary: string;
  description?: string;
  tags: string[];
  auth: RouteAuth;
  scope?: Scope;
  params?: z.ZodType<P>;
  query?: z.ZodType<Q>;
  body?: z.ZodType<B>;
  /** Named examples of the body for the OpenAPI description (e.g. one per branch of a union). */
  bodyExamples?: Record<string, { summary?: string; value: unknown }>;
  /** A realistic example of the body for the OpenAPI description (a test checks it against `body`). */
  bodyExample?: unknown;
  /**
   * The body is read as bytes, any content type, at most `limit` (`'5mb'`), and not parsed:
   * for a platform's signed deliveries, whose signature covers the exact bytes. `body` then
   * checks a Buffer (`z.instanceof(Buffer)`).
   */
  rawBody?: { limit: string };
  /** Extra request headers to document (e.g. Idempotency-Key). */
  headers?: Array<{ name: string; required: boolean; description: string; example?: string }>;
  /**
   * Each answer, with a realistic `example` of its body (a test checks it against `schema`).
   * `contentType`: a body that is not JSON (`text/event-stream`), documented as text.
   */
  responses: Record<number, { description: string; schema?: z.ZodType; example?: unknown; contentType?: string }>;
  errors?: DocumentedError[];
  handle(ctx: RouteContext<P, Q, B>): Promise<Reply>;
}

/** Declares a route with its types inferred from the schemas. */
export function defineRoute<P = Record<string, never>, Q = Record<string, never>, B = undefined>(
  spec: RouteSpec<P, Q, B>,
): RouteSpec<P, Q, B> {
  return spec;
}

/** A route whose schema types have been checked at its declaration. */
export type AnyRoute = RouteSpec<any, any, any>;
