import express, { type NextFunction, type Request, type RequestHandler, type Response, type Router } from 'express';
import type { Logger } from '../infra/logger.ts';
import { ApiError } from './api-error.ts';
import { bodyJson, type AnyRoute, type RouteContext } from '../web/route.ts';
import type { AuthContext } from '../kernel/auth-context.ts';
import { RouteTable } from '../web/route-table.ts';
import { parseOrThrow } from '../web/validation.ts';

export interface MountOptions {
  logger: Logger;
  /** Where the router is mounted (`/api/reseller/v1`): the routes' metric labels start with it. */
  basePath: string;
  /** Check every answer against its declared schema (tests): a mismatch becomes a 500. */
  checkResponses?: boolean;
  /** Checks the caller may use the route (the back-office's roles): throws its refusal. */
  authorize?: (route: AnyRoute, req: Request) => void;
}

declare module 'express-serve-static-core' {
  interface Request {
    /** The declared path of the route that answers, with its router's (`/api/reseller/v1/orders/{id}`), for metrics. */
    routePath?: string;
  }
}

/**
 * Mounts declared routes as one handler that looks the route up in a RouteTable (a request
 * that matches none goes on to the next handler), then: scope check, request validation, the
 * handler, the reply.
 */
export function mountRoutes(router: Router, routes: AnyRoute[], opts: MountOptions): void {
  const table = new RouteTable(routes);
  // One metric label per route, made here rather than concatenated on every request.
  const labels = new Map(routes.map((route) => [route, `${opts.basePath}${route.path}`]));
  const rawReaders = new Map(
    routes.flatMap((route) => (route.rawBody ? [[route, rawBodyReader(route.rawBody.limit)] as const] : [])),
  );
  router.use((req: Request, res: Response, next: NextFunction) => {
    let match;
    try {
      match = table.find(req.method, req.path);
    } catch (err) {
      return next(err);
    }
    if (!match) return next();
    req.params = match.params;
    req.routePath = labels.get(match.route);
    const readRaw = rawReaders.get(match.route);
    if (!readRaw) return void answer(match.route, req, res, next, opts);
    readRaw(req, res, (err?: unknown) => (err ? next(err) : void answer(match.route, req, res, next, opts)));
  });
}

/**
 * What a handler gets. A class, not an object literal with a getter: a literal whose getter is
 * a new closure each time gets a hidden class (a Map, which V8 keeps in old space) per request,
 * and that dead Map's reference to the closure kept the whole request alive through every
 * young-generation GC until the next full one (a fifth of all allocations promoted).
 */
class HandlerContext implements RouteContext<unknown, unknown, unknown> {
  readonly params: unknown;
  readonly query: unknown;
  readonly body: unknown;
  readonly auth: AuthContext;
  readonly headers: Request['headers'];
  readonly requestId: string;
  readonly req: Request;
  readonly res: Response;
  readonly #logger: Logger;
  #log: Logger | undefined;

  constructor(input: { params: unknown; query: unknown; body: unknown; req: Request; res: Response; logger: Logger }) {
    this.params = input.params;
    this.query = input.query;
    this.body = input.body;
    this.auth = input.req.auth!;
    this.headers = input.req.headers;
    this.requestId = input.req.requestId;
    this.req = input.req;
    this.res = input.res;
    this.#logger = input.logger;
  }

  /** Made on first use: most requests log nothing. */
  get log(): Logger {
    return (this.#log ??= this.#logger.child({ requestId: this.requestId }));
  }
}

async function answer(
  route: AnyRoute,
  req: Request,
  res: Response,
  next: NextFunction,
  opts: MountOptions,
): Promise<void> {
  try {
    if (route.auth === 'apiKey') {
      const auth = req.auth;
      if (!auth) throw new ApiError(401, 'unauthorized', 'No API key: send it as Authorization: Bearer <API_KEY>.');
      if (route.scope && auth.scopes && !auth.scopes.has(route.scope)) {
        throw new ApiError(
          403,
          'insufficient_scope',
          `This API key lacks the scope '${route.scope}' required by ${route.method.toUpperCase()} ${route.path}.`,
        );
      }
    }
    opts.authorize?.(route, req);
    const params = parseOrThrow(route.params, req.params, 'path');
    const query = parseOrThrow(route.query, { ...req.query }, 'query');
    const body = route.body ? parseOrThrow(route.body, req.body ?? undefined, 'body') : undefined;
    const reply = await route.handle(new HandlerContext({ params, query, body, req, res, logger: opts.logger }));
    if (opts.checkResponses) {
      const declared = route.responses[reply.status];
      if (!declared) throw new Error(`${route.operationId} answered ${reply.status}, which it does not declare`);
      const check = declared.schema?.safeParse(reply.body);
      if (check && !check.success)
        throw new Error(`${route.operationId} answered a body that does not match its schema: ${check.error.message}`);
    }
    res.status(reply.status);
    if (reply.headers) res.set(reply.headers);
    if (reply.text !== undefined) {
      res.setHeader('Content-Type', 'text/plain; charset=utf-8');
      res.setHeader('Content-Length', Buffer.byteLength(reply.text));
      res.end(reply.text);
    } else if (reply.body === undefined) {
      res.end();
    } else {
      // Straight to the socket: headers and body leave in one write (express's send turns
      // a longer string into a Buffer, which then goes out as a second chunk). A constant
      // body is bytes already, sent as they are (no encoding per reply).
      const json = bodyJson(reply.body);
      res.setHeader('Content-Type', 'application/json; charset=utf-8');
      res.setHeader('Content-Length', typeof json === 'string' ? Buffer.byteLength(json) : json.length);
      res.end(json);
    }
  } catch (err) {
    next(err);
  }
}

/** Reads a body as bytes (any content type) up to `limit`; too large is 413, one cut short 400. */
function rawBodyReader(limit: string): RequestHandler {
  const read = express.raw({ type: () => true, limit });
  return (req, res, next) =>
    read(req, res, (err?: unknown) => {
      if (!err) {
        if (!Buffer.isBuffer(req.body)) req.body = Buffer.alloc(0);
        return next();
      }
      const type = (err as { type?: string }).type;
      if (type === 'entity.too.large')
        return next(new ApiError(413, 'payload_too_large', `The request body is larger than ${limit}.`));
      if (type === 'request.aborted')
        return next(new ApiError(400, 'invalid_request', 'The request body was not received completely.'));
      next(err);
    });
}
