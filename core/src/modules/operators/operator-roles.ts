import type { Request } from 'express';
import type { Actor } from '../audit/audit-tables.ts';
import type { AuditContext } from '../audit/audit-log.ts';
import type { OperatorRole } from './operator-tokens-tables.ts';
import { Refusal } from '../../kernel/refusal.ts';
import { clientAddress } from '../../web/client-address.ts';

export type { OperatorRole };

/** The roles, least first: each has every right of the ones before it. */
export const OPERATOR_ROLES: readonly OperatorRole[] = ['viewer', 'support', 'admin'];

/** Who is acting on the back-office: their role, and who they are for the audit trail. */
export interface Operator {
  role: OperatorRole;
  actor: Actor;
}

declare module 'express-serve-static-core' {
  interface Request {
    /** The operator behind a back-office or console request (a token or a console session). */
    operator?: Operator;
  }
}

/**
 * The one table of which role each state-changing back-office route and console action needs
 * (method and full path, as in the app's table of entry points, entry-points.ts). Reading (GET) needs `viewer`.
 * `support` runs the operation (retries, syncs, redeliveries, production reports, dashboard links); `admin` changes
 * accounts, money and credentials. A state-changing entry point missing here needs `admin` (and a test fails).
 * `*` as the method and a path ending in `/*`: every state-changing request below it (a third-party app mounted whole).
 */
export const ROLE_TABLE: ReadonlyArray<{ method: string; path: string; role: OperatorRole }> = [
  // The back-office API (/admin/v1)
  { method: 'post', path: '/admin/v1/resellers', role: 'admin' },
  { method: 'post', path: '/admin/v1/resellers/{id}/approve', role: 'admin' },
  { method: 'post', path: '/admin/v1/resellers/{id}/suspend', role: 'admin' },
  { method: 'post', path: '/admin/v1/resellers/{id}/api-keys', role: 'admin' },
  { method: 'delete', path: '/admin/v1/api-keys/{id}', role: 'admin' },
  { method: 'post', path: '/admin/v1/resellers/{id}/wallet/top-ups', role: 'admin' },
  { method: 'put', path: '/admin/v1/resellers/{id}/card', role: 'admin' },
  { method: 'post', path: '/admin/v1/orders/{id}/production', role: 'support' },
  { method: 'post', path: '/admin/v1/orders/{id}/lines/{line}/conversion', role: 'support' },
  { method: 'post', path: '/admin/v1/resellers/{id}/dashboard-links', role: 'support' },
  { method: 'post', path: '/admin/v1/operator-tokens', role: 'admin' },
  { method: 'delete', path: '/admin/v1/operator-tokens/{id}', role: 'admin' },
  // bull-board's retry, promote, clean and remove actions on the queue dashboard
  { method: '*', path: '/admin/v1/queues/*', role: 'support' },
  // The console (/admin)
  { method: 'post', path: '/admin/sign-out', role: 'viewer' },
  { method: 'post', path: '/admin/resellers/{id}/approve', role: 'admin' },
  { method: 'post', path: '/admin/resellers/{id}/suspend', role: 'admin' },
  { method: 'post', path: '/admin/resellers/{id}/top-up', role: 'admin' },
  { method: 'post', path: '/admin/resellers/{id}/api-keys', role: 'admin' },
  { method: 'post', path: '/admin/resellers/{id}/dashboard-link', role: 'support' },
];

/** The role `method path` needs (the declared path: `/admin/v1/resellers/{id}/approve`). */
export function roleFor(method: string, path: string): OperatorRole {
  const m = method.toLowerCase();
  if (m === 'get' || m === 'head' || m === 'options') return 'viewer';
  const row =
    ROLE_TABLE.find((r) => r.method === m && r.path === path) ??
    ROLE_TABLE.find((r) => r.method === '*' && r.path.endsWith('/*') && path.startsWith(r.path.slice(0, -1)));
  return row?.role ?? 'admin';
}

export function hasRole(have: OperatorRole, need: OperatorRole): boolean {
  return OPERATOR_ROLES.indexOf(have) >= OPERATOR_ROLES.indexOf(need);
}

export function isOperatorRole(value: unknown): value is OperatorRole {
  return typeof value === 'string' && (OPERATOR_ROLES as readonly string[]).includes(value);
}

/** Throws 403 `insufficient_role` unless the request's operator has at least the role `method path` needs. */
export function requireRole(req: Request, method: string, path: string): Operator {
  const need = roleFor(method, path);
  const operator = req.operator;
  if (!operator) throw new Refusal('unauthorized', 'Sign in first: the back-office needs an operator.');
  if (!hasRole(operator.role, need)) {
    throw new Refusal(
      'insufficient_role',
      `${method.toUpperCase()} ${path} needs the role '${need}'; ${describeActor(operator.actor)} has '${operator.role}'.`,
    );
  }
  return operator;
}

function describeActor(actor: Actor): string {
  if (actor.type === 'operator') return actor.email ?? actor.name ?? actor.id;
  if (actor.type === 'operator_token') return `operator token ${actor.name ?? actor.id}`;
  return actor.type.replace('_', ' ');
}

/** Who did it and from where, for the audit trail, from a request of an operator. */
export function auditContextOf(req: Request, actor?: Actor): AuditContext {
  return {
    actor: actor ?? req.operator?.actor ?? { type: 'system', id: 'unknown' },
    ip: clientAddress(req),
    userAgent: req.get('user-agent') ?? null,
    requestId: req.requestId ?? null,
  };
}
