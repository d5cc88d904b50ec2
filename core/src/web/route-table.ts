import { Refusal } from '../kernel/refusal.ts';
import type { HttpMethod } from './route.ts';

interface Declared {
  method: HttpMethod;
  /** OpenAPI style: `/orders/{id}/lines/{line}/file`. */
  path: string;
}

interface Pattern<R> {
  /** Literal segments lower-cased; a parameter is its name in an object. */
  segments: Array<string | { param: string }>;
  route: R;
}

export interface RouteMatch<R> {
  route: R;
  params: Record<string, string>;
}

/**
 * Finds the declared route of a request in one step: paths without parameters in a map,
 * the others among the patterns of their method and length. Express's router instead tries
 * every mounted route in turn, with a closure per step, on every request. The matching is
 * express's default: case-insensitive literals, an optional trailing slash, non-empty
 * parameters, percent-decoded; HEAD is served by the GET route.
 */
export class RouteTable<R extends Declared> {
  /** Every route, in the order declared. */
  readonly routes: readonly R[];
  readonly #exact = new Map<string, R>();
  readonly #patterns = new Map<string, Array<Pattern<R>>>();

  constructor(routes: R[]) {
    this.routes = [...routes];
    for (const route of routes) {
      const method = route.method.toUpperCase();
      const segments = route.path
        .split('/')
        .slice(1)
        .map((s) => (/^\{\w+\}$/.test(s) ? { param: s.slice(1, -1) } : s.toLowerCase()));
      if (segments.every((s) => typeof s === 'string')) {
        this.#exact.set(`${method} ${route.path.toLowerCase()}`, route);
        continue;
      }
      const key = `${method} ${segments.length}`;
      const list = this.#patterns.get(key) ?? [];
      list.push({ segments, route });
      this.#patterns.set(key, list);
    }
  }

  /** The route for `method` and `path` (the path below the router's mount point, no query). */
  find(method: string, path: string): RouteMatch<R> | undefined {
    const verb = method === 'HEAD' ? 'GET' : method;
    const trimmed = path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path;
    const exact = this.#exact.get(`${verb} ${trimmed.toLowerCase()}`);
    if (exact) return { route: exact, params: {} };
    const parts = trimmed.split('/');
    const candidates = this.#patterns.get(`${verb} ${parts.length - 1}`);
    if (!candidates) return undefined;
    for (const { segments, route } of candidates) {
      const params = matchSegments(segments, parts);
      if (params) return { route, params };
    }
    return undefined;
  }
}

function matchSegments(
  segments: Array<string | { param: string }>,
  parts: string[],
): Record<string, string> | undefined {
  for (let i = 0; i < segments.length; i++) {
    const segment = segments[i]!;
    const part = parts[i + 1]!;
    if (typeof segment === 'string' ? part !== segment && part.toLowerCase() !== segment : part === '')
      return undefined;
  }
  // Decoded only once every literal matched: a bad encoding in another route's path is a 404, not a 400.
  const params: Record<string, string> = {};
  for (let i = 0; i < segments.length; i++) {
    const segment = segments[i]!;
    if (typeof segment !== 'string') params[segment.param] = decodeParam(segment.param, parts[i + 1]!);
  }
  return params;
}

function decodeParam(name: string, raw: string): string {
  if (!raw.includes('%')) return raw;
  try {
    return decodeURIComponent(raw);
  } catch {
    throw new Refusal('invalid_request', `The path parameter '${name}' is not valid percent-encoding: '${raw}'.`);
  }
}
