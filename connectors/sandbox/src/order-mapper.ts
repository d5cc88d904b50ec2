import type { StoreListing, StoreOrder } from '@print-api/connector-kit';
import { z } from 'zod';

/** A sandbox store order as the sandbox platform's API and webhooks carry it. */
export const sandboxOrderSchema = z.object({
  id: z.string(),
  name: z.string(),
  paid: z.boolean(),
  cancelled: z.boolean(),
  created_at: z.string(),
  updated_at: z.string(),
  lines: z.array(
    z.object({
      id: z.string(),
      sku: z.string().nullable(),
      quantity: z.number().int().positive(),
      title: z.string().nullable(),
      product_id: z.string().nullable(),
    }),
  ),
  ship_to: z
    .object({
      name: z.string(),
      company: z.string().optional(),
      email: z.string().optional(),
      phone: z.string().optional(),
      address1: z.string(),
      address2: z.string().optional(),
      postal_code: z.string(),
      city: z.string(),
      state: z.string().optional(),
      country: z.string(),
    })
    .nullable(),
});
export type SandboxOrder = z.infer<typeof sandboxOrderSchema>;

/** A sandbox listing (a product with one variant, so no variant id). */
export const sandboxProductSchema = z.object({
  id: z.string(),
  sku: z.string().nullable(),
  title: z.string(),
  status: z.enum(['active', 'draft', 'archived']),
});

export function toStoreOrder(o: SandboxOrder): StoreOrder {
  const to = o.ship_to;
  return {
    externalId: o.id,
    name: o.name,
    paid: o.paid,
    cancelled: o.cancelled,
    createdAt: o.created_at,
    updatedAt: o.updated_at,
    lines: o.lines.map((l) => ({
      externalLineId: l.id,
      sku: l.sku,
      quantity: l.quantity,
      title: l.title ?? undefined,
      externalProductId: l.product_id,
      externalVariantId: null,
    })),
    recipient: to
      ? {
          name: to.name,
          company: to.company,
          email: to.email,
          phone: to.phone,
          address1: to.address1,
          address2: to.address2,
          postalCode: to.postal_code,
          city: to.city,
          state: to.state,
          country: to.country,
        }
      : null,
  };
}

export function toStoreListing(p: z.infer<typeof sandboxProductSchema>): StoreListing {
  return {
    externalProductId: p.id,
    externalVariantId: null,
    sku: p.sku,
    title: p.title,
    active: p.status === 'active',
  };
}
