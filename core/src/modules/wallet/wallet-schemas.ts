import { z } from 'zod';

export const ledgerEntrySchema = z.object({
  id: z.string(),
  kind: z.enum(['top_up', 'order_payment', 'order_refund', 'adjustment']).meta({
    description:
      '`top_up`: money added; `order_payment`: an order paid from the wallet (negative); `order_refund`: a cancelled order refunded; `adjustment`: a correction by the operator.',
  }),
  amountCents: z.number().int(),
  balanceAfterCents: z.number().int(),
  orderId: z.string().nullable(),
  reference: z.string().nullable(),
  createdAt: z.string(),
});
