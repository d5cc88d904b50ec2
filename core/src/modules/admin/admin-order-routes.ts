import { z } from 'zod';
import { defineRoute, type AnyRoute } from '../../web/route.ts';
import { orderSchemas } from '../orders/orders-schemas.ts';
import type { OrdersService } from '../orders/orders-service.ts';
import type { AuditLog } from '../audit/audit-log.ts';
import { auditContextOf } from '../operators/operator-roles.ts';

const tags = ['Back-office'];

/** The print facility's reports and the manual file-conversion step. */
export function adminOrderRoutes(deps: {
  orders: OrdersService;
  /** The loaded connectors' platforms: order sources besides the spec's. */
  sources: readonly string[];
  audit: AuditLog;
}): AnyRoute[] {
  const orderViewSchema = orderSchemas(deps.sources).orderView;
  return [
    defineRoute({
      method: 'post',
      path: '/orders/{id}/production',
      operationId: 'reportProduction',
      summary: 'Report production progress (PROCESSING, PRINTING, SHIPPED with tracking, DELIVERED)',
      tags,
      auth: 'admin',
      params: z.object({ id: z.string().min(1).max(64) }),
      body: z
        .strictObject({
          status: z.enum(['PROCESSING', 'PRINTING', 'SHIPPED', 'DELIVERED']),
          tracking: z
            .strictObject({
              carrier: z.string().min(1).max(100),
              trackingNumber: z.string().min(1).max(100),
              trackingUrl: z.url({ protocol: /^https?$/ }).max(2048),
            })
            .optional(),
        })
        .refine((b) => b.status !== 'SHIPPED' || b.tracking, {
          message: 'tracking is required with SHIPPED',
          path: ['tracking'],
        }),
      responses: { 200: { description: 'The order', schema: z.object({ data: orderViewSchema }) } },
      errors: [
        { status: 404, code: 'not_found', description: 'Unknown order.' },
        {
          status: 409,
          code: 'illegal_transition',
          description: 'The order cannot move to that status from where it is.',
        },
      ],
      handle: async ({ req, params, body }) => {
        const hook = deps.audit.hook(auditContextOf(req), (o: { orderId: string; resellerId: string }) => ({
          action: 'order.production_reported',
          target: { type: 'order', id: o.orderId },
          changes: {
            resellerId: o.resellerId,
            status: body.status,
            ...(body.tracking ? { tracking: body.tracking } : {}),
          },
        }));
        return {
          status: 200,
          body: { data: await deps.orders.reportProduction(params.id, body.status, body.tracking, hook) },
        };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/orders/{id}/lines/{line}/conversion',
      operationId: 'confirmConversion',
      summary: "Confirm that a line's EPS/AI/PS/SVG file was converted to PDF (the order then goes on to payment)",
      tags,
      auth: 'admin',
      params: z.object({
        id: z.string().min(1).max(64),
        line: z
          .string()
          .regex(/^\d{1,3}$/)
          .transform(Number),
      }),
      body: z.strictObject({
        fileUrl: z
          .url({ protocol: /^https$/ })
          .max(2048)
          .optional(),
      }),
      responses: { 200: { description: 'The order', schema: z.object({ data: orderViewSchema }) } },
      errors: [
        { status: 404, code: 'not_found', description: 'Unknown order or line.' },
        { status: 409, code: 'line_not_awaiting_conversion', description: 'The line does not wait for a conversion.' },
      ],
      handle: async ({ req, params, body }) => {
        const hook = deps.audit.hook(auditContextOf(req), (o: { orderId: string; resellerId: string }) => ({
          action: 'order.conversion_confirmed',
          target: { type: 'order', id: o.orderId },
          changes: { resellerId: o.resellerId, line: params.line, fileUrl: body.fileUrl ?? null },
        }));
        return {
          status: 200,
          body: { data: await deps.orders.confirmConversion(params.id, params.line, body.fileUrl, hook) },
        };
      },
    }),
  ];
}
