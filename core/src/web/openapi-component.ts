import type { z } from 'zod';

/**
 * Component names of schemas (`Order`, `Quote`…): kept beside zod's own metadata, never in its global registry (ids
 * there must be unique per process).
 */
const componentNames = new WeakMap<z.ZodType, string>();

/**
 * Names a schema as a reusable OpenAPI component: wherever it appears, the description has a
 * `$ref` to `#/components/schemas/<name>` instead of a copy. Returns the schema itself.
 *
 * @example
 * export const orderSchema = openApiComponent(z.object({ id: z.string() }), 'Order');
 */
export function openApiComponent<T extends z.ZodType>(schema: T, name: string): T {
  componentNames.set(schema, name);
  return schema;
}

/** The component name `openApiComponent` gave a schema, if any. */
export function componentName(schema: z.ZodType): string | undefined {
  return componentNames.get(schema);
}

/** One event delivered to webhook endpoints, for the `webhooks` section of the OpenAPI description. */
export interface DocumentedWebhook {
  summary: string;
  description: string;
  /** The body (the event envelope with this event's `data`). */
  schema: z.ZodType;
  example: unknown;
}
