import { z } from 'zod';
import { listEnvelopeSchema, pageQueryShape, type CursorCodec } from '../../kernel/pagination.ts';
import { auditContextOf } from '../operators/operator-roles.ts';
import { defineRoute, type AnyRoute } from '../../web/route.ts';
import type { AuditLog } from '../audit/audit-log.ts';
import type { OperatorTokens } from '../operators/operator-tokens.ts';

const tags = ['Operators and audit'];
const role = z.enum(['viewer', 'support', 'admin']);

const operatorTokenSchema = z.object({
  id: z.string(),
  name: z.string(),
  role,
  prefix: z.string().meta({ description: 'The first characters of the token, to tell tokens apart.' }),
  createdBy: z.string(),
  createdAt: z.string(),
  expiresAt: z.string().nullable(),
  revokedAt: z.string().nullable(),
  lastUsedAt: z.string().nullable(),
});

export const auditEventSchema = z.object({
  id: z.string(),
  seq: z.number().int(),
  at: z.string(),
  actor: z.object({
    type: z.enum(['operator', 'operator_token', 'admin_token', 'api_key', 'system']),
    id: z.string(),
    name: z.string().optional(),
    email: z.string().optional(),
  }),
  action: z.string(),
  target: z.object({ type: z.string(), id: z.string() }),
  ip: z.string().nullable(),
  userAgent: z.string().nullable(),
  requestId: z.string().nullable(),
  changes: z.record(z.string(), z.unknown()).nullable(),
  hash: z.string().meta({ description: 'SHA-256 of the previous record’s hash and this record’s content.' }),
});

const isoDate = z
  .string()
  .max(40)
  .refine((s) => !Number.isNaN(Date.parse(s)), 'must be a date and time such as 2026-11-28T18:00:00Z')
  .transform((s) => new Date(s));

/** Operator tokens (machines' credentials with a role) and the audit trail. */
export function adminOperatorRoutes(deps: {
  tokens: OperatorTokens;
  audit: AuditLog;
  cursors: CursorCodec;
}): AnyRoute[] {
  return [
    defineRoute({
      method: 'post',
      path: '/operator-tokens',
      operationId: 'createOperatorToken',
      summary: 'Make an operator token (opt_…) with a role; the token is shown only here',
      tags,
      auth: 'admin',
      body: z.strictObject({
        name: z.string().trim().min(1).max(100),
        role,
        expiresInDays: z.number().int().min(1).max(3650).optional(),
      }),
      bodyExample: { name: 'nightly report', role: 'viewer', expiresInDays: 90 },
      responses: {
        201: {
          description: 'The token, shown once',
          schema: z.object({
            data: z.object({
              id: z.string(),
              token: z.string(),
              name: z.string(),
              role,
              expiresAt: z.string().nullable(),
            }),
          }),
        },
      },
      handle: async ({ req, body }) => {
        const made = await deps.tokens.create(auditContextOf(req), body);
        return {
          status: 201,
          body: {
            data: { id: made.id, token: made.token, name: made.name, role: made.role, expiresAt: made.expiresAt },
          },
        };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/operator-tokens',
      operationId: 'listOperatorTokens',
      summary: 'List the operator tokens (never their secrets)',
      tags,
      auth: 'admin',
      responses: { 200: { description: 'The tokens', schema: z.object({ data: z.array(operatorTokenSchema) }) } },
      handle: async () => ({ status: 200, body: { data: await deps.tokens.list() } }),
    }),
    defineRoute({
      method: 'delete',
      path: '/operator-tokens/{id}',
      operationId: 'revokeOperatorToken',
      summary: 'Revoke an operator token (its next request is refused: 401)',
      tags,
      auth: 'admin',
      params: z.object({ id: z.string().min(1).max(64) }),
      responses: { 200: { description: 'Revoked', schema: z.object({ data: operatorTokenSchema }) } },
      errors: [{ status: 404, code: 'not_found', description: 'Unknown operator token.' }],
      handle: async ({ req, params }) => ({
        status: 200,
        body: { data: await deps.tokens.revoke(auditContextOf(req), params.id) },
      }),
    }),
    defineRoute({
      method: 'get',
      path: '/audit-events',
      operationId: 'listAuditEvents',
      summary: 'The audit trail, newest first: who did what to what, when and from where',
      tags,
      auth: 'admin',
      query: z.strictObject({
        ...pageQueryShape,
        action: z.string().min(1).max(100).optional().meta({ description: 'Only this action (reseller.approved).' }),
        actorId: z.string().min(1).max(200).optional().meta({ description: 'Only what this actor did.' }),
        targetId: z.string().min(1).max(200).optional().meta({ description: 'Only what was done to this.' }),
        since: isoDate.optional().meta({ description: 'At or after this time (ISO 8601).' }),
        until: isoDate.optional().meta({ description: 'Before this time (ISO 8601).' }),
      }),
      responses: { 200: { description: 'A page of records', schema: listEnvelopeSchema(auditEventSchema) } },
      handle: async ({ query }) => ({ status: 200, body: await deps.audit.list(deps.cursors, query) }),
    }),
    defineRoute({
      method: 'get',
      path: '/audit-events/verify',
      operationId: 'verifyAuditEvents',
      summary: 'Check the hash chain of the audit trail: ok, how many records were checked, the first broken one',
      tags,
      auth: 'admin',
      responses: {
        200: {
          description: 'The outcome',
          schema: z.object({
            data: z.object({ ok: z.boolean(), checked: z.number().int(), firstBrokenId: z.string().nullable() }),
          }),
        },
      },
      handle: async () => ({ status: 200, body: { data: await deps.audit.verify() } }),
    }),
  ];
}
