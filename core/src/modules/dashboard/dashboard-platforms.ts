import type { ConnectorRegistry } from '../stores/connector-registry.ts';
import type { FormField, PlatformForms } from './pages/stores-pages.ts';

/** The fields of an object schema (zod): each with whether it may be left empty, and its description as a hint. */
function fieldsOf(schema: unknown): FormField[] {
  const shape = (schema as { shape?: Record<string, unknown> } | undefined)?.shape;
  if (!shape || typeof shape !== 'object') return [];
  return Object.entries(shape).map(([name, field]) => {
    const f = field as {
      safeParse?: (v: unknown) => { success: boolean };
      meta?: () => { description?: string } | undefined;
    };
    // Optional where leaving it out parses: a default applies (Amazon's marketplaces) or none is needed.
    const optional = f.safeParse?.(undefined).success === true;
    const description = f.meta?.()?.description;
    return { name, optional, ...(optional && description ? { hint: description } : {}) };
  });
}

/**
 * The connect forms of the loaded connectors the operator has set up (a form that can only fail
 * is a dead end): pasted credentials, a key-issuing flow, and an OAuth install where its app is set up.
 */
export function platformForms(connectors: Pick<ConnectorRegistry, 'all' | 'installable' | 'offered'>): PlatformForms[] {
  return connectors
    .all()
    .filter((c) => connectors.offered(c.manifest.platform))
    .map((c) => ({
      platform: c.manifest.platform,
      displayName: c.manifest.displayName,
      connectFields: fieldsOf(c.manifest.connectSchema),
      ...(c.manifest.testModeOnly ? { testModeOnly: true } : {}),
      ...(c.credentialRequest ? { requestFields: fieldsOf(c.credentialRequest.inputSchema) } : {}),
      ...(c.install && connectors.installable(c.manifest.platform)
        ? { installFields: fieldsOf(c.install.inputSchema) }
        : {}),
    }));
}
