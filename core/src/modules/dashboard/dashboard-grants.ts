import type { Mode } from '../../kernel/tenant.ts';
import type { Scope } from '../../kernel/scopes.ts';

/**
 * What a dashboard session may do: never more than the API key that opened it. A session from
 * a key's link acts in the key's mode with the key's scopes, read from the key on every page (a
 * revoked key ends it); a session from a back-office link (`login-link`) has every scope and
 * switches mode, as the back-office chose to open it.
 */
export interface SessionGrant {
  mode: Mode;
  /** null: every scope. */
  scopes: ReadonlySet<Scope> | null;
  /** The key that opened the session; null for a back-office link. */
  keyId: string | null;
}

export function grantAllows(grant: SessionGrant, scope: Scope | undefined): boolean {
  return !scope || grant.scopes === null || grant.scopes.has(scope);
}

/** Whether the session may switch to the other mode: only a back-office link's. */
export function canSwitchMode(grant: SessionGrant): boolean {
  return grant.keyId === null;
}

/** Each section of the dashboard and the scopes its pages (read) and forms (write) need, as the API's routes do. */
const SECTIONS: Array<{ prefix: string; read: Scope; write: Scope }> = [
  { prefix: '/stores', read: 'stores:read', write: 'stores:write' },
  { prefix: '/products', read: 'reseller-products:read', write: 'reseller-products:write' },
  { prefix: '/orders', read: 'orders:read', write: 'orders:write' },
  { prefix: '/webhooks', read: 'webhooks:read', write: 'webhooks:write' },
];

/**
 * The scope a page (GET) or form (POST) of the dashboard needs before it runs; Home needs none
 * of its own (it shows what the session's scopes let it read). The API calls a page makes are
 * checked again, route by route (DashboardApi).
 */
export function pageScope(method: 'get' | 'post', path: string): Scope | undefined {
  const section = SECTIONS.find((s) => path === s.prefix || path.startsWith(`${s.prefix}/`));
  if (!section) return undefined;
  // A form's own page (`/products/new`) is the form: it needs what sending it needs.
  return method === 'get' && !path.endsWith('/new') ? section.read : section.write;
}

/** The scope the navigation link to `href` (`/dashboard/orders`) needs. */
export function navScope(href: string): Scope | undefined {
  return pageScope('get', href.replace(/^\/dashboard/, '') || '/');
}

/** What a session that cannot switch says instead of the switch: how to get a session in the other mode. */
export function otherModeHint(mode: Mode): string {
  const other: Mode = mode === 'live' ? 'test' : 'live';
  return `This session was opened with a ${mode} API key: it stays in ${mode} mode. For a ${other} session, sign in with a login link made with a ${other} key, or ask us for one.`;
}
