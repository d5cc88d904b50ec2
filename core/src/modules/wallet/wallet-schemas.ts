import { z } from 'zod';

export const ledgerEntrySchema = z.object({
  id: z.string(),
  kind: z.enum(['top_up', 'order_payment', 'order_refund', 'adjustment']),
  amountCents: z.number().int(),
  balanceAfterCents: z.number().int(),
  orderId: z.string().nullable(),
  reference: z.string().nullable(),
  createdAt: z.string(),
});
