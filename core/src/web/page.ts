import type { RequestHandler, Router } from 'express';

/**
 * Who opens an entry point that is not one of the APIs' JSON routes: a reseller's dashboard
 * session, an operator (console session or the admin token), a token of its own (METRICS_TOKEN,
 * when set), or anyone (sign-ins, health, assets).
 */
export type PageAuth = 'reseller' | 'operator' | 'public' | 'token';

/**
 * How a state-changing form is kept from other sites: `token` (the session's CSRF token and a
 * same-site origin), `origin` (a same-site origin only: a sign-in, before there is a session),
 * or `none` (a GET, or a request no browser makes).
 */
export type PageCsrf = 'token' | 'origin' | 'none';

/** `sign-in`: failures throttled per client address; `rate-limit`: the reseller's per-minute limit. */
export type PageLimit = 'sign-in' | 'rate-limit';

/**
 * One declaration per page, form, redirect or probe (the sibling of `defineRoute` for what answers
 * HTML, text or a redirect): method, path (OpenAPI style, `/orders/{id}`, below the mount point of
 * its router), who may open it, its CSRF defence and what limits it. The routers register their
 * handlers from these declarations, and the app lists them in its one table of entry points, with
 * the `defineRoute` routes (entry-points.ts), which the form fuzzer and the route listing read.
 */
export interface PageSpec<H = RequestHandler> {
  method: 'get' | 'post';
  path: string;
  auth: PageAuth;
  csrf: PageCsrf;
  limit?: PageLimit;
  /** Run before the handler, on this page only (a CSRF check where the router has none). */
  guard?: RequestHandler;
  handle: H;
}

/** Declares a page (see PageSpec). */
export function definePage<H = RequestHandler>(spec: PageSpec<H>): PageSpec<H> {
  return spec;
}

/**
 * A route of a third-party app mounted whole (the queue dashboard's bull-board): its handlers are
 * the app's own, but its method, path and guards are declared here for the table of entry points.
 */
export interface MountedRoute {
  method: 'get' | 'post' | 'put' | 'patch' | 'delete';
  path: string;
  auth: PageAuth;
  csrf: PageCsrf;
}

/** A router and the pages it registered (and the routes of an app it mounts whole), for the app's table. */
export interface PageRouter {
  router: Router;
  pages: readonly PageSpec<unknown>[];
  mounted?: readonly MountedRoute[];
}

/** Express's path syntax for a declared path: `/orders/{id}` -> `/orders/:id`. */
export function expressPath(path: string): string {
  return path.replace(/\{(\w+)\}/g, ':$1');
}

/** Registers declared pages on `router`, in order. */
export function mountPages(router: Pick<Router, 'get' | 'post'>, pages: readonly PageSpec[]): void {
  for (const page of pages)
    router[page.method](expressPath(page.path), ...(page.guard ? [page.guard] : []), page.handle);
}
