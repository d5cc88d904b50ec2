import { z } from 'zod';
import { componentName, openApiComponent, type DocumentedWebhook } from '../web/openapi-component.ts';

export type { DocumentedWebhook };
import { errorEntry } from './error-catalogue.ts';
import type { AnyRoute, DocumentedError } from '../web/route.ts';
import { SERVICE_UNAVAILABLE_ERROR } from './service-unavailable.ts';

type JsonSchema = Record<string, unknown>;

/** zod's metadata (descriptions, examples) with the component names added as `id`s. */
const metadata = {
  get(schema: z.ZodType) {
    const meta = z.globalRegistry.get(schema);
    const id = componentName(schema);
    return id ? { ...meta, id } : meta;
  },
} as unknown as z.core.$ZodRegistry<Record<string, unknown>>;

const errorDetailSchema = openApiComponent(
  z.looseObject({
    line: z.number().int().optional().meta({ description: 'The 0-based line of an order or quote the problem is in.' }),
    field: z.string().optional().meta({
      description: 'The field, as a path: `lines[0].options.paper`, `recipient.postalCode`, `Idempotency-Key`.',
    }),
    code: z.string().meta({ description: 'What is wrong, for code to branch on (see the error reference).' }),
    message: z.string().optional(),
    allowedKeys: z.array(z.string()).optional(),
    allowedValues: z.array(z.union([z.string(), z.number()])).optional(),
    nearestQuantity: z
      .number()
      .int()
      .optional()
      .meta({ description: 'run_unavailable: the nearest run that can be made.' }),
  }),
  'ErrorDetail',
);

const errorSchema = openApiComponent(
  z.object({
    error: z.object({
      code: z
        .string()
        .meta({ description: 'Stable and documented in the error reference (`/api/reseller/v1/docs/errors`).' }),
      message: z.string().meta({ description: 'English, for a person; may change.' }),
      details: z.array(errorDetailSchema).optional().meta({ description: 'One entry per problem (400 and 422).' }),
    }),
  }),
  'Error',
);

const STANDARD_ERRORS: Record<string, DocumentedError[]> = {
  apiKey: [
    { status: 400, code: 'invalid_request', description: 'Malformed request; details name each problem.' },
    { status: 401, code: 'unauthorized', description: 'Missing, invalid or revoked API key.' },
    { status: 403, code: 'insufficient_scope', description: 'The key lacks the scope.' },
    { status: 403, code: 'account_not_active', description: 'The account is not approved, or suspended.' },
    { status: 403, code: '1010', description: 'No User-Agent, or a generic library default (refused at the edge).' },
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
  public: [
    { status: 500, code: 'internal_error', description: 'Error on the service side only.' },
    SERVICE_UNAVAILABLE_ERROR,
  ],
};

/** `#/$defs/X` (zod's) as `#/components/schemas/X`, everywhere in a schema. */
function rewriteRefs(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(rewriteRefs);
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [
        k,
        k === '$ref' && typeof v === 'string' ? v.replace(/^#\/\$defs\//, '#/components/schemas/') : rewriteRefs(v),
      ]),
    );
  }
  return value;
}

type Converted = { root: JsonSchema; defs: [name: string, schema: JsonSchema][] };
const converted = { input: new WeakMap<z.ZodType, Converted>(), output: new WeakMap<z.ZodType, Converted>() };

/**
 * zod's JSON Schema of a schema and of its named parts, references rewritten: made once per schema and reading in a
 * process (a schema is a constant of its module; every app a process builds, and the tests build hundreds, documents
 * the same ones), copied for each document by `toSchema`.
 */
function converting(schema: z.ZodType, io: 'input' | 'output'): Converted {
  let done = converted[io].get(schema);
  if (!done) {
    const {
      $schema: _drop,
      $defs,
      ...rest
    } = z.toJSONSchema(schema, { io, unrepresentable: 'any', target: 'draft-2020-12', metadata }) as JsonSchema;
    done = {
      root: rewriteRefs(rest) as JsonSchema,
      defs: Object.entries(($defs ?? {}) as Record<string, JsonSchema>).map(([name, def]) => [
        name,
        rewriteRefs(def) as JsonSchema,
      ]),
    };
    converted[io].set(schema, done);
  }
  return done;
}

/**
 * The JSON Schema of a zod schema, its named parts (`openApiComponent`) moved to `components`
 * and referenced. A name used for two different shapes (a request's and a response's reading of
 * one schema) gets the `Input` suffix on the request side.
 */
function toSchema(schema: z.ZodType, io: 'input' | 'output', components: Record<string, JsonSchema>): JsonSchema {
  const converted = structuredClone(converting(schema, io));
  let json = converted.root;
  for (const [name, rewritten] of converted.defs) {
    let key = name;
    if (components[key] && JSON.stringify(components[key]) !== JSON.stringify(rewritten)) {
      key = `${name}${io === 'input' ? 'Input' : 'Output'}`;
      json = JSON.parse(
        JSON.stringify(json).replaceAll(`"#/components/schemas/${name}"`, `"#/components/schemas/${key}"`),
      ) as JsonSchema;
    }
    components[key] = rewritten;
  }
  // A named root (`{data: Order}` is not; a body schema may be) is referenced like any other.
  const rootName = componentName(schema);
  if (rootName && !json.$ref) {
    components[rootName] ??= json;
    return { $ref: `#/components/schemas/${rootName}` };
  }
  return json;
}

function parameters(
  schema: z.ZodType | undefined,
  location: 'path' | 'query',
  components: Record<string, JsonSchema>,
): JsonSchema[] {
  if (!schema) return [];
  const json = toSchema(schema, 'input', components);
  const props = (json.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set((json.required as string[] | undefined) ?? []);
  return Object.entries(props).map(([name, prop]) => {
    const { description, ...rest } = prop;
    return {
      name,
      in: location,
      required: location === 'path' || required.has(name),
      ...(description ? { description } : {}),
      schema: rest,
    };
  });
}

/** The OpenAPI 3.1 description, built from the route declarations themselves. */
export function buildOpenApi(opts: {
  title: string;
  description: string;
  serverUrl: string;
  routes: AnyRoute[];
  /** Tags in the order to show them, each with a description. */
  tags?: Array<{ name: string; description: string }>;
  /** The events delivered to webhook endpoints, by event name, and the headers every delivery carries. */
  webhooks?: {
    events: Record<string, DocumentedWebhook>;
    headers: Array<{ name: string; description: string; example: string }>;
    operationTags?: string[];
  };
  license?: { name: string; url?: string; identifier?: string };
}): JsonSchema {
  const paths: Record<string, Record<string, JsonSchema>> = {};
  const components: Record<string, JsonSchema> = {};
  toSchema(errorSchema, 'output', components);
  for (const route of opts.routes) {
    const errors = [...(route.errors ?? []), ...STANDARD_ERRORS[route.auth]!].filter(
      (e, i, all) => all.findIndex((o) => o.status === e.status && o.code === e.code) === i,
    );
    const responses: Record<string, JsonSchema> = {};
    for (const [status, r] of Object.entries(route.responses)) {
      const content = r.schema
        ? {
            'application/json': {
              schema: toSchema(r.schema, 'output', components),
              ...(r.example !== undefined ? { example: r.example } : {}),
            },
          }
        : r.contentType
          ? {
              [r.contentType]: {
                schema: { type: 'string' },
                ...(r.example !== undefined ? { example: r.example } : {}),
              },
            }
          : undefined;
      responses[status] = { description: r.description, ...(content ? { content } : {}) };
    }
    for (const status of [...new Set(errors.map((e) => e.status))].sort()) {
      const codes = errors.filter((e) => e.status === status);
      responses[String(status)] = {
        description: codes.map((e) => `\`${e.code}\`: ${e.description}`).join(' '),
        content: {
          'application/json': {
            schema: { $ref: '#/components/schemas/Error' },
            examples: Object.fromEntries(
              codes.map((e) => [
                exampleKey(e.code),
                {
                  summary: e.code,
                  value: { error: { code: e.code, message: errorEntry(e.code)?.example ?? e.description } },
                },
              ]),
            ),
          },
        },
      };
    }
    const operation: JsonSchema = {
      operationId: route.operationId,
      summary: route.summary,
      ...(route.description ? { description: route.description } : {}),
      tags: route.tags,
      parameters: [
        ...parameters(route.params, 'path', components),
        ...parameters(route.query, 'query', components),
        ...(route.headers ?? []).map((h) => ({
          name: h.name,
          in: 'header',
          required: h.required,
          description: h.description,
          schema: { type: 'string' },
          ...(h.example !== undefined ? { example: h.example } : {}),
        })),
      ],
      ...(route.body
        ? {
            requestBody: {
              required: true,
              content: {
                'application/json': {
                  schema: toSchema(route.body, 'input', components),
                  ...(route.bodyExamples
                    ? { examples: route.bodyExamples }
                    : route.bodyExample !== undefined
                      ? { example: route.bodyExample }
                      : {}),
                },
              },
            },
          }
        : {}),
      responses,
      security: route.auth === 'public' ? [] : [{ bearerAuth: [] }],
      ...(route.scope ? { 'x-scope': route.scope } : {}),
    };
    (paths[route.path] ??= {})[route.method] = operation;
  }
  const webhooks: Record<string, JsonSchema> = {};
  for (const [event, hook] of Object.entries(opts.webhooks?.events ?? {})) {
    webhooks[event] = {
      post: {
        operationId: `webhook_${event.replace(/[^A-Za-z0-9]/g, '_')}`,
        summary: hook.summary,
        description: hook.description,
        tags: opts.webhooks?.operationTags ?? ['Webhooks'],
        security: [],
        parameters: opts.webhooks!.headers.map((h) => ({
          name: h.name,
          in: 'header',
          required: true,
          description: h.description,
          schema: { type: 'string' },
          example: h.name === 'X-Service-Event' ? event : h.example,
        })),
        requestBody: {
          required: true,
          content: {
            'application/json': { schema: toSchema(hook.schema, 'output', components), example: hook.example },
          },
        },
        responses: {
          '200': {
            description:
              'Any 2xx within 10 seconds acknowledges the delivery; anything else (or no answer) is retried for about 24 hours.',
          },
          '400': {
            description:
              'Refuse a delivery whose signature or timestamp does not check out; it is retried, and shows as failed in GET /webhooks/{id}/deliveries.',
          },
        },
      },
    };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: opts.title,
      version: '1.2.0',
      description: opts.description,
      ...(opts.license ? { license: opts.license } : {}),
    },
    servers: [{ url: opts.serverUrl }],
    ...(opts.tags ? { tags: opts.tags } : {}),
    paths,
    ...(opts.webhooks ? { webhooks } : {}),
    components: {
      schemas: Object.fromEntries(Object.entries(components).sort(([a], [b]) => a.localeCompare(b))),
      securitySchemes: {
        bearerAuth: { type: 'http', scheme: 'bearer', description: 'prk_live_… or prk_test_… API key' },
      },
    },
  };
}

/** An example's key: OpenAPI keys are `^[a-zA-Z0-9._-]+$`, and `1010` reads better named. */
function exampleKey(code: string): string {
  return /^\d/.test(code) ? `cdn_${code}` : code;
}

/**
 * An interactive reference page (Swagger UI, served from our own host) titled `title`, linking the error reference when
 * given.
 */
export function docsPage(
  openApiUrl: string,
  assetsUrl: string,
  errorsUrl?: string,
  title = 'Reseller Print API reference',
): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${title}</title><link rel="icon" href="/favicon.ico">
<link rel="stylesheet" href="${assetsUrl}/swagger-ui.css"></head>
<body>${errorsUrl ? `<p style="font-family:sans-serif;margin:1rem 2rem 0"><a href="${errorsUrl}">Error reference</a>: every error code, its status and what to do · <a href="${openApiUrl}">openapi.json</a></p>` : ''}<div id="ui"></div>
<script src="${assetsUrl}/swagger-ui-bundle.js"></script>
<script src="${assetsUrl}/docs-init.js" data-spec="${openApiUrl}"></script>
</body></html>`;
}
