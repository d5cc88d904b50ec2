import type { Connector } from '@print-api/connector-kit';
import type { PlatformForms } from './pages/stores-pages.ts';

/** The field names of an object schema (zod), or none. */
function fieldsOf(schema: unknown): string[] {
  const shape = (schema as { shape?: Record<string, unknown> } | undefined)?.shape;
  return shape && typeof shape === 'object' ? Object.keys(shape) : [];
}

/** The connect forms of the loaded connectors: pasted credentials, a key-issuing flow, an OAuth install. */
export function platformForms(connectors: Array<Connector<any, any>>): PlatformForms[] {
  return connectors.map((c) => ({
    platform: c.manifest.platform,
    displayName: c.manifest.displayName,
    connectFields: fieldsOf(c.manifest.connectSchema),
    ...(c.credentialRequest ? { requestFields: fieldsOf(c.credentialRequest.inputSchema) } : {}),
    ...(c.install ? { installFields: fieldsOf(c.install.inputSchema) } : {}),
  }));
}
