import { z } from 'zod';
import { defineRoute, type AnyRoute } from '../../web/route.ts';
import type { DashboardLinks } from './dashboard-links-service.ts';
import type { AuditLog } from '../audit/audit-log.ts';
import { auditContextOf } from '../operators/operator-roles.ts';

const LINK_EXAMPLE = {
  url: 'https://print-api.example/dashboard/login/dl_3QmZ8pN1vR7xK2cW9yT4bH6s',
  expiresAt: '2026-11-25T10:51:30.000Z',
  mode: 'test',
};

const linkSchema = z.object({
  url: z.string().meta({ description: 'Open it in a browser within 5 minutes; it signs in once.' }),
  expiresAt: z.string(),
  mode: z.enum(['live', 'test']),
});

/** `POST /dashboard-links`: a single-use login link to the dashboard, in the calling key's mode. */
export function dashboardLinkRoutes(deps: { links: DashboardLinks }): AnyRoute[] {
  return [
    defineRoute({
      method: 'post',
      path: '/dashboard-links',
      operationId: 'createDashboardLink',
      summary: 'A login link to the reseller dashboard',
      description:
        "Returns a URL that opens the dashboard in a browser, in this key's mode (live or test). It is valid for 5 minutes and signs in once; the session it opens lasts 12 hours and ends at once if the account is suspended. Only a hash of the link is stored.",
      tags: ['Account'],
      auth: 'apiKey',
      scope: 'dashboard',
      body: z.strictObject({}).optional(),
      bodyExample: {},
      responses: {
        201: { description: 'The link', schema: z.object({ data: linkSchema }), example: { data: LINK_EXAMPLE } },
      },
      handle: async ({ auth }) => ({
        status: 201,
        body: { data: await deps.links.create({ resellerId: auth.resellerId, mode: auth.mode, keyId: auth.keyId }) },
      }),
    }),
  ];
}

/** `POST /admin/v1/resellers/{id}/dashboard-links`: the same link, for the back-office (the CLI's `login-link`). */
export function adminDashboardLinkRoutes(deps: { links: DashboardLinks; audit: AuditLog }): AnyRoute[] {
  return [
    defineRoute({
      method: 'post',
      path: '/resellers/{id}/dashboard-links',
      operationId: 'createResellerDashboardLink',
      summary: "A login link to a reseller's dashboard (live unless `mode` says test)",
      tags: ['Back-office'],
      auth: 'admin',
      params: z.object({ id: z.string().min(1).max(64) }),
      body: z.strictObject({ mode: z.enum(['live', 'test']).optional() }).optional(),
      bodyExample: { mode: 'test' },
      responses: {
        201: { description: 'The link', schema: z.object({ data: linkSchema }), example: { data: LINK_EXAMPLE } },
      },
      errors: [
        { status: 404, code: 'not_found', description: 'Unknown reseller.' },
        { status: 403, code: 'account_not_active', description: 'The reseller is pending or suspended.' },
      ],
      handle: async ({ req, params, body }) => ({
        status: 201,
        body: {
          data: await deps.links.create(
            { resellerId: params.id, mode: body?.mode ?? 'live' },
            dashboardLinkAudit(deps.audit, req),
          ),
        },
      }),
    }),
  ];
}

/** The record of a dashboard link made by an operator (the back-office route and the console's reseller page). */
export function dashboardLinkAudit(audit: AuditLog, req: Parameters<typeof auditContextOf>[0]) {
  return audit.hook(auditContextOf(req), (l: { id: string; resellerId: string; mode: string; expiresAt: string }) => ({
    action: 'dashboard_link.created',
    target: { type: 'reseller', id: l.resellerId },
    changes: { linkId: l.id, mode: l.mode, expiresAt: l.expiresAt },
  }));
}
