import { z } from 'zod';
import { openApiComponent } from '../../../web/openapi-component.ts';

/** One platform's fields in a `{platform, ...fields}` body, with the example the connector gives. */
export interface PlatformFields {
  platform: string;
  displayName: string;
  fields: z.ZodObject;
  example: Record<string, unknown>;
}

/**
 * A `{platform, ...fields}` body as a union discriminated on `platform`, one branch per loaded
 * connector that takes it: validation names an unknown platform with the ones allowed, and the
 * OpenAPI description shows each platform's fields (`oneOf` with a `discriminator`) and an
 * example of each. `common` adds the fields every platform shares (`returnUrl`).
 */
export function platformBody(
  branches: PlatformFields[],
  common: z.ZodRawShape = {},
  /** Names each branch as an OpenAPI component, `<name><Platform>` (`ConnectStoreShopify`). */
  name?: string,
): { body: z.ZodType<Record<string, unknown>>; examples: Record<string, { summary: string; value: unknown }> } {
  const options = branches.map((b) => {
    const branch = b.fields
      .safeExtend({ ...common, platform: z.literal(b.platform) })
      .meta({ title: b.platform, description: b.displayName });
    return name
      ? openApiComponent(
          branch,
          `${name}${b.platform.charAt(0)}${b.platform
            .slice(1)
            .toLowerCase()
            .replace(/[^a-z0-9]+(.)?/g, (_m, c: string | undefined) => (c ?? '').toUpperCase())}`,
        )
      : branch;
  });
  const [first, ...rest] = options;
  // With no connector taking this body, every request is refused with the same 400 as an unknown platform.
  const body = first
    ? z.discriminatedUnion('platform', [first, ...rest]).meta({ discriminator: { propertyName: 'platform' } })
    : z.object({ platform: z.never() });
  const examples = Object.fromEntries(
    branches.map((b) => [b.platform, { summary: b.displayName, value: { platform: b.platform, ...b.example } }]),
  );
  return { body, examples };
}
