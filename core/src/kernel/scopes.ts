import { z } from 'zod';

/**
 * Scopes of spec §5, plus the store-management and dashboard extensions. A key created without a scope list
 * has them all (stored as NULL); one created with an empty list has none (stored as `[]`) and
 * can call only what needs no scope (GET /me).
 */
export const SCOPES = [
  'catalog:read',
  'quotes:write',
  'reseller-products:read',
  'reseller-products:write',
  'orders:read',
  'orders:write',
  'wallet:read',
  'webhooks:read',
  'webhooks:write',
  'stores:read',
  'stores:write',
  // Opens the reseller dashboard in a browser (POST /dashboard-links): a login link per request.
  'dashboard',
] as const;

export type Scope = (typeof SCOPES)[number];
export const scopeSchema = z.enum(SCOPES);
