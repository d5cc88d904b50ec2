import type { Mode } from './tenant.ts';
import type { Scope } from './scopes.ts';

/** Who is calling: set by the API-key middleware on every authenticated request. */
export interface AuthContext {
  resellerId: string;
  resellerName: string;
  /** The reseller's discount on public prices, in basis points. */
  discountBps: number;
  keyId: string;
  mode: Mode;
  /** null = every scope; an empty set = none (only routes without a scope, such as GET /me). */
  scopes: ReadonlySet<Scope> | null;
}
