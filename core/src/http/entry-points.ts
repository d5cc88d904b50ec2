import type { Express } from 'express';
import type { Scope } from '../kernel/scopes.ts';
import type { MountedRoute, PageAuth, PageCsrf, PageLimit, PageSpec } from '../web/page.ts';
import type { AnyRoute, HttpMethod, RouteAuth } from '../web/route.ts';

interface Entry {
  method: HttpMethod;
  /** The full path, OpenAPI style: `/api/reseller/v1/orders/{id}`. */
  path: string;
  /** Where its router is mounted (`/api/reseller/v1`; `''` at the root). */
  base: string;
  auth: RouteAuth | PageAuth;
  /** How a state-changing request is kept from other sites (see PageCsrf); a bearer credential needs nothing. */
  csrf: PageCsrf;
  limit?: PageLimit;
}

/** A JSON route (`defineRoute`): its declaration gives schemas, scope and the OpenAPI description. */
export interface ApiEntry extends Entry {
  kind: 'api';
  scope?: Scope;
  route: AnyRoute;
}

/** A page, form, redirect or probe (`definePage`). */
export interface PageEntry extends Entry {
  kind: 'page';
}

/** A route of a third-party app mounted whole (the queue dashboard): declared for this table, handled by the app. */
export interface MountedEntry extends Omit<Entry, 'method'> {
  kind: 'mounted';
  method: MountedRoute['method'];
}

export type EntryPoint = ApiEntry | PageEntry | MountedEntry;

/**
 * The app's one table of every entry point, in the order the app mounts them: the declared
 * routes of the two APIs and of `/connectors/...` and the declared pages, each with method, full
 * path, kind, who may call it, its CSRF defence and what limits it. Express registers the
 * handlers from the same declarations; the fuzzers, the OpenAPI tests and `npm run docs:routes`
 * read this table, so none of them can miss an entry point.
 */
export class EntryPoints {
  readonly #entries: EntryPoint[] = [];

  get entries(): readonly EntryPoint[] {
    return this.#entries;
  }

  /**
   * Declared routes mounted at `base`. `sessionCsrf`: the router also takes a browser session,
   * whose state-changing requests need its CSRF token (the back-office); else a bearer key is the
   * only credential and no browser sends it on its own.
   */
  addRoutes(base: string, routes: readonly AnyRoute[], opts: { sessionCsrf?: boolean } = {}): void {
    for (const route of routes) {
      this.#entries.push({
        kind: 'api',
        method: route.method,
        path: `${base}${route.path}`,
        base,
        auth: route.auth,
        csrf: opts.sessionCsrf && route.method !== 'get' ? 'token' : 'none',
        ...(route.scope ? { scope: route.scope } : {}),
        ...(route.auth === 'apiKey' ? { limit: 'rate-limit' as const } : {}),
        route,
      });
    }
  }

  /** Declared pages mounted at `base` (a router's `/` is the mount point itself). */
  addPages(base: string, pages: readonly PageSpec<unknown>[]): void {
    for (const { method, path, auth, csrf, limit } of pages) {
      this.#entries.push({
        kind: 'page',
        method,
        path: path === '/' && base ? base : `${base}${path}`,
        base,
        auth,
        csrf,
        ...(limit ? { limit } : {}),
      });
    }
  }

  /** The routes of a third-party app mounted whole at `base` (declared beside it, handled by it). */
  addMounted(base: string, routes: readonly MountedRoute[]): void {
    for (const { method, path, auth, csrf } of routes)
      this.#entries.push({ kind: 'mounted', method, path: path === '/' ? base : `${base}${path}`, base, auth, csrf });
  }

  /** The declared routes mounted at `base`, as declared (paths below the mount point), in order. */
  routes(base: string): AnyRoute[] {
    return this.#entries.flatMap((e) => (e.kind === 'api' && e.base === base ? [e.route] : []));
  }

  /** Every declared page, form, redirect and probe. */
  pages(): PageEntry[] {
    return this.#entries.filter((e): e is PageEntry => e.kind === 'page');
  }
}

/** The table of the app `createHttpApp` built. */
export function entryPointsOf(app: Express): EntryPoints {
  return app.locals.entryPoints as EntryPoints;
}
