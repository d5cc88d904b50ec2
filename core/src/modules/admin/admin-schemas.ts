import { z } from 'zod';
import { scopeSchema } from '../../kernel/scopes.ts';

export const resellerSchema = z.object({
  id: z.string(),
  name: z.string(),
  email: z.string(),
  phone: z.string(),
  status: z.enum(['pending', 'approved', 'suspended']),
  discountPercent: z.number(),
  createdAt: z.string(),
  updatedAt: z.string(),
});

export const createResellerBody = z.strictObject({
  name: z.string().trim().min(1).max(200),
  email: z.email(),
  phone: z
    .string()
    .trim()
    .regex(/^\+?[0-9 ()-]{6,20}$/, 'must be a phone number such as +31 20 123 4567'),
  discountPercent: z.number().min(0).max(100).multipleOf(0.01).default(0),
});

export const apiKeySchema = z.object({
  id: z.string(),
  resellerId: z.string(),
  prefix: z.string(),
  mode: z.enum(['live', 'test']),
  scopes: z
    .array(scopeSchema)
    .nullable()
    .meta({ description: 'null: every scope; []: none (the key can call only GET /me).' }),
  revokedAt: z.string().nullable(),
  lastUsedAt: z.string().nullable(),
  createdAt: z.string(),
});

export const createApiKeyBody = z.strictObject({
  mode: z.enum(['live', 'test']),
  scopes: z.array(scopeSchema).optional().meta({
    description:
      'The scopes the key carries. Leave it out for every scope; [] gives none (the key can call only GET /me, which needs no scope).',
  }),
});

export const topUpBody = z.strictObject({
  amountCents: z.number().int().min(1).max(100_000_000),
  reference: z.string().max(200).optional(),
  mode: z
    .enum(['live', 'test'])
    .default('live')
    .meta({ description: 'Which wallet: the live one (default) or the sandbox one.' }),
});

export const cardBody = z.strictObject({ token: z.string().min(1).max(200) });

export const cardSchema = z.object({
  gateway: z.string(),
  brand: z.string().nullable(),
  last4: z.string().nullable(),
  createdAt: z.string(),
});

export const idParams = z.object({ id: z.string().min(1).max(64) });
