import type { NextFunction, Request, Response, Router } from 'express';
import type { Logger } from '../infra/logger.ts';
import { ApiError } from './api-error.ts';
import { bodyJson, type AnyRoute } from './route.ts';
import { parseOrThrow } from './validation.ts';

export interface MountOptions {
  logger: Logger;
  /** Check every answer against its declared schema (tests): a mismatch becomes a 500. */
  checkResponses?: boolean;
}

/** Express path of an OpenAPI path: `/orders/{id}` -> `/orders/:id`. */
export function expressPath(path: string): string {
  return path.replace(/\{(\w+)\}/g, ':$1');
}

/** Mounts declared routes: scope check, request validation, the handler, the reply. */
export function mountRoutes(router: Router, routes: AnyRoute[], opts: MountOptions): void {
  for (const route of routes) {
    router[route.method](expressPath(route.path), async (req: Request, res: Response, next: NextFunction) => {
      try {
        if (route.auth === 'apiKey') {
          const auth = req.auth;
          if (!auth) throw new ApiError(401, 'unauthorized', 'No API key: send it as Authorization: Bearer <API_KEY>.');
          if (route.scope && auth.scopes && !auth.scopes.has(route.scope)) {
            throw new ApiError(403, 'insufficient_scope', `This API key lacks the scope '${route.scope}' required by ${route.method.toUpperCase()} ${route.path}.`);
          }
        }
        const params = parseOrThrow(route.params, req.params, 'path');
        const query = parseOrThrow(route.query, { ...req.query }, 'query');
        const body = route.body ? parseOrThrow(route.body, req.body ?? undefined, 'body') : undefined;
        let log: Logger | undefined;
        const reply = await route.handle({
          params,
          query,
          body,
          auth: req.auth!,
          headers: req.headers,
          requestId: req.requestId,
          // Made on first use: most requests log nothing.
          get log() {
            return (log ??= opts.logger.child({ requestId: req.requestId }));
          },
          req,
          res,
        });
        if (opts.checkResponses) {
          const declared = route.responses[reply.status];
          if (!declared) throw new Error(`${route.operationId} answered ${reply.status}, which it does not declare`);
          const check = declared.schema?.safeParse(reply.body);
          if (check && !check.success) throw new Error(`${route.operationId} answered a body that does not match its schema: ${check.error.message}`);
        }
        res.status(reply.status);
        if (reply.headers) res.set(reply.headers);
        if (reply.body === undefined) {
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
    });
  }
}
