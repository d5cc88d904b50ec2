import type { Request, Response } from 'express';
import type { AuthContext } from '../../kernel/auth-context.ts';
import { Refusal } from '../../kernel/refusal.ts';
import type { AnyRoute, RouteContext } from '../../web/route.ts';
import { RouteTable } from '../../web/route-table.ts';
import { parseOrThrow } from '../../web/validation.ts';
import type { Logger } from '../../infra/logger.ts';
import type { Mode } from '../../kernel/tenant.ts';
import type { Scope } from '../../kernel/scopes.ts';

/** The reseller a dashboard session acts for, as the API's routes know a caller. */
export function sessionCaller(input: {
  sessionId: string;
  resellerId: string;
  resellerName: string;
  discountBps: number;
  mode: Mode;
  scopes: ReadonlySet<Scope> | null;
}): AuthContext {
  return Object.freeze({
    resellerId: input.resellerId,
    resellerName: input.resellerName,
    discountBps: input.discountBps,
    // What a key's id is used for (its rate limit, GET /me) names the session instead.
    keyId: `session:${input.sessionId}`,
    mode: input.mode,
    // The scopes of the key that opened the session (null, every scope, for a back-office link).
    scopes: input.scopes,
  });
}

/**
 * The reseller API, called in-process by the dashboard's pages: the same declared routes, with
 * the same validation, services, rules and error answers as over HTTP. A page is a view of what
 * the API answers; it never reaches a service on a path of its own, so a rule the API keeps
 * (a linked product cannot be deleted, an order cancels only before production) holds here too.
 */
export class DashboardApi {
  readonly #table: RouteTable<AnyRoute>;
  readonly #logger: Logger;

  constructor(deps: { routes: AnyRoute[]; logger: Logger }) {
    this.#table = new RouteTable(deps.routes);
    this.#logger = deps.logger;
  }

  /**
   * Calls `method path` (the API's path, `/orders/{id}` filled in) as `caller`. Answers the
   * route's body; a refusal throws as the API would answer it.
   */
  async call<T = unknown>(
    caller: AuthContext,
    http: { req: Request; res: Response },
    method: string,
    path: string,
    input: { query?: Record<string, string | undefined>; body?: unknown } = {},
  ): Promise<T> {
    const match = this.#table.find(method.toUpperCase(), path);
    if (!match || match.route.auth !== 'apiKey') throw new Refusal('not_found', `No API route ${method} ${path}.`);
    const route = match.route;
    // The same refusal the API answers such a key: a session never does more than its key could.
    if (route.scope && caller.scopes && !caller.scopes.has(route.scope)) {
      throw new Refusal(
        'insufficient_scope',
        `This session was opened with an API key without the scope '${route.scope}': this page or form is not open to it.`,
      );
    }
    const query = Object.fromEntries(Object.entries(input.query ?? {}).filter(([, v]) => v !== undefined && v !== ''));
    const ctx: RouteContext<unknown, unknown, unknown> = {
      params: parseOrThrow(route.params, match.params, 'path'),
      query: parseOrThrow(route.query, query, 'query'),
      body: route.body ? parseOrThrow(route.body, input.body, 'body') : undefined,
      auth: caller,
      headers: http.req.headers,
      requestId: http.req.requestId,
      log: this.#logger,
      req: http.req,
      res: http.res,
    };
    const reply = await route.handle(ctx);
    return reply.body as T;
  }
}
