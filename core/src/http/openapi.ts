import { z } from 'zod';
import type { AnyRoute, DocumentedError } from './route.ts';
import { SERVICE_UNAVAILABLE_ERROR } from './service-unavailable.ts';

type JsonSchema = Record<string, unknown>;

const errorSchema = z.object({
  error: z.object({
    code: z.string(),
    message: z.string(),
    details: z
      .array(
        z.looseObject({
          line: z.number().int().optional(),
          field: z.string().optional(),
          code: z.string(),
          message: z.string().optional(),
          allowedKeys: z.array(z.string()).optional(),
          allowedValues: z.array(z.union([z.string(), z.number()])).optional(),
        }),
      )
      .optional(),
  }),
});


const STANDARD_ERRORS: Record<string, DocumentedError[]> = {
  apiKey: [
    { status: 400, code: 'invalid_request', description: 'Malformed request; details name each problem.' },
    { status: 401, code: 'unauthorized', description: 'Missing, invalid or revoked API key.' },
    { status: 403, code: 'insufficient_scope', description: 'The key lacks the scope; or account_not_active: account not approved or suspended.' },
    { status: 429, code: 'rate_limited', description: 'Rate limit exceeded; see Retry-After.' },
    { status: 500, code: 'internal_error', description: 'Error on the service side only.' },
    SERVICE_UNAVAILABLE_ERROR,
  ],
  admin: [
    { status: 400, code: 'invalid_request', description: 'Malformed request.' },
    { status: 401, code: 'unauthorized', description: 'Missing or wrong back-office token.' },
    { status: 500, code: 'internal_error', description: 'Error on the service side only.' },
    SERVICE_UNAVAILABLE_ERROR,
  ],
  public: [{ status: 500, code: 'internal_error', description: 'Error on the service side only.' }, SERVICE_UNAVAILABLE_ERROR],
};

function toSchema(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
  const { $schema: _drop, ...rest } = z.toJSONSchema(schema, { io, unrepresentable: 'any', target: 'draft-2020-12' }) as JsonSchema;
  return rest;
}

function parameters(schema: z.ZodType | undefined, location: 'path' | 'query'): JsonSchema[] {
  if (!schema) return [];
  const json = toSchema(schema, 'input');
  const props = (json.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set((json.required as string[] | undefined) ?? []);
  return Object.entries(props).map(([name, prop]) => {
    const { description, ...rest } = prop;
    return { name, in: location, required: location === 'path' || required.has(name), ...(description ? { description } : {}), schema: rest };
  });
}

/** The OpenAPI 3.1 description, built from the route declarations themselves. */
export function buildOpenApi(opts: { title: string; description: string; serverUrl: string; routes: AnyRoute[] }): JsonSchema {
  const paths: Record<string, Record<string, JsonSchema>> = {};
  for (const route of opts.routes) {
    const errors = [...(route.errors ?? []), ...STANDARD_ERRORS[route.auth]!].filter(
      (e, i, all) => all.findIndex((o) => o.status === e.status && o.code === e.code) === i,
    );
    const responses: Record<string, JsonSchema> = {};
    for (const [status, r] of Object.entries(route.responses)) {
      responses[status] = { description: r.description, ...(r.schema ? { content: { 'application/json': { schema: toSchema(r.schema, 'output') } } } : {}) };
    }
    for (const status of [...new Set(errors.map((e) => e.status))].sort()) {
      const codes = errors.filter((e) => e.status === status);
      responses[String(status)] = {
        description: codes.map((e) => `\`${e.code}\`: ${e.description}`).join(' '),
        content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
      };
    }
    const operation: JsonSchema = {
      operationId: route.operationId,
      summary: route.summary,
      ...(route.description ? { description: route.description } : {}),
      tags: route.tags,
      parameters: [
        ...parameters(route.params, 'path'),
        ...parameters(route.query, 'query'),
        ...(route.headers ?? []).map((h) => ({ name: h.name, in: 'header', required: h.required, description: h.description, schema: { type: 'string' } })),
      ],
      ...(route.body
        ? { requestBody: { required: true, content: { 'application/json': { schema: toSchema(route.body, 'input'), ...(route.bodyExamples ? { examples: route.bodyExamples } : {}) } } } }
        : {}),
      responses,
      security: route.auth === 'public' ? [] : [{ bearerAuth: [] }],
      ...(route.scope ? { 'x-scope': route.scope } : {}),
    };
    (paths[route.path] ??= {})[route.method] = operation;
  }
  return {
    openapi: '3.1.0',
    info: { title: opts.title, version: '1.1.0', description: opts.description },
    servers: [{ url: opts.serverUrl }],
    paths,
    components: {
      schemas: { Error: toSchema(errorSchema, 'output') },
      securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer', description: 'prk_live_… or prk_test_… API key' } },
    },
  };
}

/** An interactive reference page (Swagger UI, served from our own host). */
export function docsPage(openApiUrl: string, assetsUrl: string, title = 'Reseller Print API reference'): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${title}</title>
<link rel="stylesheet" href="${assetsUrl}/swagger-ui.css"></head>
<body><div id="ui"></div>
<script src="${assetsUrl}/swagger-ui-bundle.js"></script>
<script src="${assetsUrl}/docs-init.js" data-spec="${openApiUrl}"></script>
</body></html>`;
}
