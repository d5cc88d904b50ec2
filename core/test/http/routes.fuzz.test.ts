import { expect } from 'chai';
import fc from 'fast-check';
import { createHash, randomUUID } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { z } from 'zod';
import { buildOpenApi } from '../../src/http/openapi.ts';
import { entryPointsOf } from '../../src/http/entry-points.ts';
import { rawRequest, type RawResponse } from '../helpers/raw-http.ts';
import { startTestService, USER_AGENT, type TestService } from '../helpers/test-service.ts';
import { withoutNock } from '../helpers/without-nock.ts';
import { RECIPIENT } from '../orders/orders-helpers.ts';
import {
  fromSchema,
  headerValue,
  type Hints,
  hostileJson,
  hostileShortString,
  jsonText,
  urlComponent,
} from './fuzz-arbitraries.ts';
import { scaled } from '../helpers/wait.ts';

/**
 * Every route of the API and the back-office (from their OpenAPI descriptions, so a new route
 * is fuzzed without a word here) and the connector routes (from the app's table of them, for
 * every platform in the repository) get requests shaped by their schemas
 * with hostile values anywhere: NUL, lone surrogates, huge numbers, deep nesting, wrong types,
 * prototype keys, long and odd text, broken percent-encoding and bodies that do not decode.
 * Whatever comes in, the answer is never a 500 and every error has the spec's shape (and, as
 * the test service checks its replies, every success matches its declared schema).
 *
 * Fixed seed and bounded, for CI: FUZZ_SEED replays a run (each failure names it), FUZZ_RUNS
 * sets the requests per route (default 30; about 1,500 in all, some 8 s on an idle machine),
 * FUZZ_TIME_MS bounds the time for all routes on one backend (default 20 s; each route gets its
 * share of what is left, so a busy machine sends fewer requests rather than taking longer, but
 * never none).
 * A longer hunt: `FUZZ_SEED=$RANDOM FUZZ_RUNS=500 FUZZ_TIME_MS=600000 npx mocha core/test/http/routes.fuzz.test.ts`.
 */
const SEED = Number(process.env.FUZZ_SEED ?? 20251115);
const RUNS = Number(process.env.FUZZ_RUNS ?? 30);
const TIME_MS = Number(process.env.FUZZ_TIME_MS ?? 20_000);

const errorShape = z.strictObject({
  error: z.strictObject({
    code: z.string().min(1),
    message: z.string().min(1),
    details: z
      .array(
        z.looseObject({ code: z.string().min(1), field: z.string().optional(), line: z.number().int().optional() }),
      )
      .optional(),
  }),
});

type Schema = Record<string, any>;

interface Operation {
  /** For the report: `POST /orders`. */
  name: string;
  method: string;
  /** Below the server root, with `{param}`s. */
  path: string;
  auth: 'apiKey' | 'admin' | 'none';
  params: Array<{ name: string; in: string; required?: boolean; schema?: Schema }>;
  body: Schema | undefined;
}

/**
 * The schema with every `$ref` to `#/components/schemas/…` replaced by what it names (the shapes are not recursive).
 */
function dereferenced(value: any, doc: any, depth = 0): any {
  if (depth > 32) throw new Error('$ref nesting deeper than 32: a recursive schema?');
  if (Array.isArray(value)) return value.map((v) => dereferenced(v, doc, depth));
  if (value === null || typeof value !== 'object') return value;
  const { $ref, ...rest } = value as { $ref?: string };
  const named =
    typeof $ref === 'string' ? doc.components?.schemas?.[$ref.replace('#/components/schemas/', '')] : undefined;
  const merged = named ? { ...named, ...rest } : value;
  return Object.fromEntries(Object.entries(merged).map(([k, v]) => [k, dereferenced(v, doc, depth + (named ? 1 : 0))]));
}

function operations(doc: any, base: string, auth: Operation['auth']): Operation[] {
  return Object.entries(doc.paths as Record<string, Record<string, any>>).flatMap(([path, ops]) =>
    Object.entries(ops).map(([method, op]) => ({
      name: `${method.toUpperCase()} ${base}${path}`,
      method: method.toUpperCase(),
      path: `${base}${path}`,
      auth: (op.security?.length ?? 0) === 0 ? 'none' : auth,
      params: dereferenced(op.parameters ?? [], doc),
      body: dereferenced(op.requestBody?.content?.['application/json']?.schema, doc),
    })),
  );
}

/** The platforms whose connectors the repository holds (the test service loads them all). */
const PLATFORMS = readdirSync(new URL('../../../connectors/', import.meta.url), { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name);

/**
 * The routes outside the two APIs as the app mounted them (`/connectors/...`: webhooks, install
 * redirects and callbacks), from the app's table of entry points, described by the same
 * declarations that mount them.
 */
function rootOperations(t: TestService): Operation[] {
  const routes = entryPointsOf(t.service.app).routes('');
  return operations(buildOpenApi({ title: 'root routes', description: '', serverUrl: '', routes }), '', 'apiKey');
}

interface FuzzRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body: Buffer | undefined;
}

/** How the body travels: mostly as it should, sometimes compressed, mislabelled or not JSON at all. */
const bodyWrapping = fc.oneof(
  { weight: 24, arbitrary: fc.constant({ kind: 'json' as const }) },
  {
    weight: 1,
    arbitrary: fc.constantFrom('gzip', 'deflate', 'br').map((encoding) => ({ kind: 'garbled' as const, encoding })),
  },
  { weight: 1, arbitrary: fc.constant({ kind: 'gzip' as const }) },
  {
    weight: 1,
    arbitrary: fc
      .constantFrom('br2', 'gzip, br2', 'x-unknown')
      .map((encoding) => ({ kind: 'unknown-encoding' as const, encoding })),
  },
  {
    weight: 1,
    arbitrary: fc
      .constantFrom(
        'application/json; charset=utf-16le',
        'application/json; charset=latin1',
        'application/json; charset=nope',
        'text/plain',
        'application/x-www-form-urlencoded',
        '',
      )
      .map((contentType) => ({ kind: 'content-type' as const, contentType })),
  },
  {
    weight: 1,
    arbitrary: fc
      .constantFrom('', 'null', '{', '{"a":1}{', '\u0000', '"\\ud800"', '\ufeff{}', '[1,]', '{"a":1,"a":2}')
      .map((text) => ({ kind: 'raw' as const, text })),
  },
  {
    weight: 1,
    arbitrary: fc.constant({
      kind: 'bytes' as const,
      bytes: Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0xed, 0xa0, 0x80, 0x22, 0x7d]),
    }),
  },
);

function requestArbitrary(
  op: Operation,
  ids: Record<string, string[]>,
  hints: Hints,
  credentials: { key: string; adminToken: string },
): fc.Arbitrary<FuzzRequest> {
  const pathParams = op.params.filter((p) => p.in === 'path');
  const queryParams = op.params.filter((p) => p.in === 'query');
  const headerParams = op.params.filter((p) => p.in === 'header');
  const stringOf = (schema: Schema | undefined): fc.Arbitrary<string> =>
    fromSchema(schema, hints).map((v) => (typeof v === 'string' ? v : jsonText(v)));

  const path = fc.tuple(
    ...pathParams.map((p) => {
      const known = ids[p.name] ?? [];
      const shaped = known.length > 0 ? fc.oneof(fc.constantFrom(...known), stringOf(p.schema)) : stringOf(p.schema);
      return urlComponent(shaped.filter((s) => s.length <= 1_000)).map((v) => [p.name, v] as const);
    }),
  );
  const queryPair = (name: fc.Arbitrary<string>, schema: Schema | undefined) =>
    fc
      .tuple(urlComponent(name), urlComponent(stringOf(schema).filter((s) => s.length <= 1_000)))
      .map(([k, v]) => `${k}=${v}`);
  const query = fc
    .tuple(
      fc.tuple(...queryParams.map((p) => fc.option(queryPair(fc.constant(p.name), p.schema), { freq: 2 }))),
      // Unknown and repeated parameters, prototype names among them.
      fc.oneof(
        { weight: 3, arbitrary: fc.constant([]) },
        {
          weight: 1,
          arbitrary: fc.array(
            queryPair(
              fc.oneof(
                fc.constantFrom('__proto__', 'constructor', 'toString', ...queryParams.map((p) => p.name)),
                hostileShortString,
              ),
              undefined,
            ),
            { minLength: 1, maxLength: 2 },
          ),
        },
      ),
    )
    .map(([known, extra]) => [...known.filter((q): q is string => q !== null), ...extra].join('&'));
  const headers = fc.tuple(
    ...headerParams.map((h) =>
      fc.option(
        headerValue.map((v) => [h.name, v] as const),
        { freq: 6 },
      ),
    ),
  );
  const body =
    op.body || op.method !== 'GET'
      ? fc.option(fc.tuple(op.body ? fromSchema(op.body, hints) : hostileJson, bodyWrapping), {
          freq: op.body ? 12 : 2,
        })
      : fc.constant(null);

  return fc.tuple(path, query, headers, body).map(([params, q, hs, b]) => {
    let url = op.path;
    for (const [name, value] of params) url = url.replace(`{${name}}`, value);
    const request: FuzzRequest = {
      method: op.method,
      url: q ? `${url}?${q}` : url,
      headers: { 'user-agent': USER_AGENT },
      body: undefined,
    };
    if (op.auth === 'apiKey') request.headers.authorization = `Bearer ${credentials.key}`;
    if (op.auth === 'admin') request.headers.authorization = `Bearer ${credentials.adminToken}`;
    for (const h of hs) if (h) request.headers[h[0].toLowerCase()] = h[1];
    if (b) Object.assign(request, encodeBody(request, jsonText(b[0]), b[1]));
    return request;
  });
}

type Wrapping = typeof bodyWrapping extends fc.Arbitrary<infer W> ? W : never;

function encodeBody(request: FuzzRequest, text: string, wrapping: Wrapping): Pick<FuzzRequest, 'headers' | 'body'> {
  const headers = { ...request.headers, 'content-type': 'application/json' };
  switch (wrapping.kind) {
    case 'json':
      return { headers, body: Buffer.from(text) };
    case 'gzip':
      return { headers: { ...headers, 'content-encoding': 'gzip' }, body: gzipSync(text) };
    case 'garbled':
      return { headers: { ...headers, 'content-encoding': wrapping.encoding }, body: Buffer.from(text.slice(0, 64)) };
    case 'unknown-encoding':
      return { headers: { ...headers, 'content-encoding': wrapping.encoding }, body: Buffer.from(text) };
    case 'content-type': {
      const { 'content-type': _drop, ...rest } = headers;
      return {
        headers: wrapping.contentType ? { ...rest, 'content-type': wrapping.contentType } : rest,
        body: Buffer.from(text),
      };
    }
    case 'raw':
      return { headers, body: Buffer.from(wrapping.text) };
    case 'bytes':
      return { headers, body: wrapping.bytes };
  }
}

/** Sends one request; answers what is wrong with the reply, or nothing. Counts the statuses. */
async function problemWith(
  t: TestService,
  request: FuzzRequest,
  statuses: Map<number, number>,
): Promise<string | undefined> {
  let res: RawResponse;
  try {
    // Written to the socket as it is: fetch would resolve `..` and `%2e%2e` in the path first.
    res = await rawRequest(t.baseUrl, {
      method: request.method,
      target: request.url,
      headers: request.headers,
      ...(request.body ? { body: request.body } : {}),
    });
  } catch (err) {
    return `the request failed: ${(err as Error).message}`;
  }
  const text = res.text;
  statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
  if (res.status === 500) return `500: ${text}`;
  if (res.status < 400 || request.method === 'HEAD') return undefined;
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return `${res.status} without a JSON error body: ${JSON.stringify(text.slice(0, 200))}`;
  }
  const shape = errorShape.safeParse(body);
  return shape.success
    ? undefined
    : `${res.status} not in the error shape: ${text.slice(0, 300)} (${shape.error.message})`;
}

/** What a failure looks like in the report: enough to replay it by hand. */
function describeRequest(r: FuzzRequest): string {
  const body = r.body ? r.body.toString('utf8').slice(0, 300) : '';
  return `${r.method} ${r.url.slice(0, 300)} ${JSON.stringify(r.headers)} ${JSON.stringify(body)}`;
}

function seedFor(operation: string): number {
  return createHash('sha256').update(`${SEED}:${operation}`).digest().readInt32BE(0);
}

interface Setup {
  key: string;
  ops: Operation[];
  /** Real ids for path parameters, by parameter name. */
  ids: Record<string, string[]>;
  hints: Hints;
}

/** A reseller with something real behind the path parameters, so hostile requests get past the lookups. */
async function setUp(t: TestService): Promise<Setup> {
  const { key } = await t.reseller();
  const product = await t.api(key, 'POST', '/reseller-products', {
    sku: 'fuzz-sku',
    title: 'Fuzz',
    productId: 'business-cards',
  });
  const order = await t.api(
    key,
    'POST',
    '/orders',
    { lines: [{ productId: 'business-cards', quantity: 250 }], recipient: RECIPIENT },
    { 'idempotency-key': randomUUID() },
  );
  const webhook = await t.api(key, 'POST', '/webhooks', { url: 'https://localhost:9/hooks', events: ['*'] });
  // The back-office routes get another reseller: suspending the fuzzing one or revoking its key would end the fuzzing.
  const other = await t.reseller();
  const products = ((await t.api(key, 'GET', '/products?limit=100')).body.data as Array<{ id: string }>).map(
    (p) => p.id,
  );
  const api = operations((await t.api(undefined, 'GET', '/openapi.json')).body, '/api/reseller/v1', 'apiKey');
  const admin = operations((await t.admin('GET', '/openapi.json')).body, '/admin/v1', 'admin');
  expect(api.length).to.be.greaterThan(20);
  expect(admin.length).to.be.greaterThan(5);
  const root = rootOperations(t);
  expect(root.map((op) => op.name)).to.include.members([
    'POST /connectors/{platform}/webhooks/{target}',
    'GET /connectors/{platform}/callback',
  ]);
  expect(PLATFORMS).to.have.length.greaterThanOrEqual(6);
  return {
    key,
    ops: [...api, ...admin, ...root],
    ids: {
      id: [product.body.data?.id, order.body.data?.id, webhook.body.data?.id, other.id, other.keyId, 'fuzz-sku'].filter(
        (v): v is string => typeof v === 'string',
      ),
      line: ['0', '1', '-1', '99999999999999999999'],
      platform: PLATFORMS,
      target: ['sto_00000000000000000000000000', 'compliance'],
    },
    hints: {
      productId: products,
      resellerSku: ['fuzz-sku', 'FUZZ-SKU'],
      resellerProduct: ['fuzz-sku', product.body.data?.id ?? 'fuzz-sku'],
      sku: ['fuzz-sku', 'other-sku'],
      country: ['NL', 'DE', 'US', 'nl', 'XX'],
      quantity: [100, 250, 500, 1000],
      token: ['tok_visa', 'tok_chargeDeclined'],
    },
  };
}

/** Every operation in turn, each with its share of the time left; the failures of all of them. */
async function fuzz(
  t: TestService,
  setup: Setup,
): Promise<{ failures: string[]; statuses: Map<number, number>; sent: number }> {
  const deadline = Date.now() + TIME_MS;
  const failures: string[] = [];
  const statuses = new Map<number, number>();
  let sent = 0;
  for (const [i, op] of setup.ops.entries()) {
    // The route's share of the time left. Once it is spent, the remaining runs pass without a
    // request, but never the first: every route is sent at least one request, and none is cut
    // off mid-flight (fast-check's own time limit races a running request, leaving it to finish
    // in the background, and counts a route whose first request outlived the limit as failed).
    const sliceEnd = Date.now() + Math.max(100, (deadline - Date.now()) / (setup.ops.length - i));
    let sentHere = 0;
    const result = await fc.check(
      fc.asyncProperty(
        requestArbitrary(op, setup.ids, setup.hints, { key: setup.key, adminToken: t.service.adminToken }),
        async (request) => {
          if (sentHere > 0 && Date.now() > sliceEnd) return;
          sentHere++;
          sent++;
          const problem = await problemWith(t, request, statuses);
          if (problem) throw new Error(`${problem}\n      request: ${describeRequest(request)}`);
        },
      ),
      { seed: seedFor(op.name), numRuns: RUNS },
    );
    if (result.failed) {
      const cause = result.errorInstance instanceof Error ? result.errorInstance.message : String(result.errorInstance);
      failures.push(
        `${op.name} (FUZZ_SEED=${SEED}, fast-check seed ${result.seed}, path ${result.counterexamplePath}):\n      ${cause}`,
      );
    }
  }
  return { failures, statuses, sent };
}

for (const backend of ['pglite', 'postgres+redis'] as const) {
  describe(`fuzzing every route (no 500, errors in the spec shape) [${backend}]`, function () {
    // Starting a service takes a while on a busy machine; the fuzzing has its own time bound.
    this.timeout(scaled(TIME_MS + 90_000));
    withoutNock();
    let t: TestService | undefined;
    let setup: Setup;
    before(async function () {
      t = await startTestService(this, backend, { RATE_LIMIT_PER_MINUTE: '1000000' });
      setup = await setUp(t);
    });
    after(async () => t?.close());

    it(`answers hostile requests to every route without a 500 (FUZZ_SEED=${SEED}, ${RUNS} runs per route, ${TIME_MS} ms)`, async () => {
      const { failures, statuses, sent } = await fuzz(t!, setup);
      expect(failures, `\n${failures.join('\n')}\n`).to.deep.equal([]);
      // The requests got past the key and the rate limit to the routes, and the service still serves.
      expect(sent, 'requests sent').to.be.greaterThan(setup.ops.length);
      expect(statuses.get(429) ?? 0, 'rate limited').to.equal(0);
      expect(statuses.get(401) ?? 0, 'refused keys').to.be.lessThan(sent / 10);
      expect(
        [...statuses.keys()].filter((s) => s < 300),
        'successes',
      ).not.to.be.empty;
      expect((await t!.api(setup.key, 'GET', '/me')).status).to.equal(200);
    });
  });
}
