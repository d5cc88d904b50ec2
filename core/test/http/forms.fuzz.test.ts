import { expect } from 'chai';
import fc from 'fast-check';
import { createHash, randomUUID } from 'node:crypto';
import { entryPointsOf } from '../../src/http/entry-points.ts';
import { rawRequest, type RawResponse } from '../helpers/raw-http.ts';
import { startTestService, USER_AGENT, type TestService } from '../helpers/test-service.ts';
import { withoutNock } from '../helpers/without-nock.ts';
import { RECIPIENT } from '../orders/orders-helpers.ts';
import { brokenEncoding, hostileShortString, urlComponent } from './fuzz-arbitraries.ts';
import { scaled } from '../helpers/wait.ts';

/**
 * The browser forms (the dashboard's, the console's sign-in, the login links), fuzzed as
 * routes.fuzz.test.ts fuzzes the JSON routes: urlencoded bodies with hostile values, repeated and
 * prototype keys, broken encodings and foreign origins, signed in or not. Whatever comes in, the
 * answer is never a 500, and a refusal is a page (HTML) or the spec's error shape. The list of
 * forms is checked against the app's table of entry points (its POST pages), so a new form
 * cannot go unfuzzed. FUZZ_SEED, FUZZ_RUNS and FUZZ_TIME_MS as in routes.fuzz.test.ts.
 */
const SEED = Number(process.env.FUZZ_SEED ?? 20251115);
const RUNS = Number(process.env.FUZZ_RUNS ?? 30);
const TIME_MS = Number(process.env.FUZZ_TIME_MS ?? 15_000);

interface FormOp {
  path: string;
  /**
   * `dashboard`: sent with the fuzzing reseller's session (and mostly its CSRF token); `none`: no cookie (sign-ins).
   */
  session: 'dashboard' | 'none';
  /** The form's fields, and values that get past the first checks (hostile ones are mixed in). */
  fields: Record<string, string[]>;
  /** Sign-ins throttle failures: a 429 (with Retry-After) is their right answer once the address is locked out. */
  throttled?: boolean;
}

const url = ['https://localhost:9/hooks', 'http://127.0.0.1/x', 'javascript:alert(1)', 'https://evil.example/phish'];
const FORMS: FormOp[] = [
  { path: '/dashboard/login/{token}', session: 'none', fields: {}, throttled: true },
  { path: '/admin/sign-out', session: 'none', fields: { everywhere: ['1', '0'] } },
  // The console's reseller actions, without an operator session: refused (a sign-in, a CSRF failure), never a 500.
  { path: '/admin/resellers/{id}/approve', session: 'none', fields: {} },
  { path: '/admin/resellers/{id}/suspend', session: 'none', fields: {} },
  {
    path: '/admin/resellers/{id}/top-up',
    session: 'none',
    fields: { amount: ['12.50', '7,5', '-1', '1e309', ''], mode: ['live', 'test', 'x'], reference: ['r', ''] },
  },
  { path: '/admin/resellers/{id}/api-keys', session: 'none', fields: { mode: ['live', 'test', ''] } },
  { path: '/admin/resellers/{id}/dashboard-link', session: 'none', fields: { mode: ['live', 'test', ''] } },
  {
    path: '/admin/sign-in',
    session: 'none',
    fields: {
      token: ['x'.repeat(40)],
      next: ['/admin/stores', '//evil.example', 'https://evil.example', '/admin\\@evil'],
    },
    throttled: true,
  },
  { path: '/dashboard/mode', session: 'dashboard', fields: { mode: ['live', 'test', 'LIVE', ''] } },
  { path: '/dashboard/webhooks', session: 'dashboard', fields: { url, events: ['*', 'order.created', 'nope'] } },
  { path: '/dashboard/webhooks/{id}/test', session: 'dashboard', fields: {} },
  {
    path: '/dashboard/webhooks/{id}/rotate',
    session: 'dashboard',
    fields: { expiresInHours: ['0', '24', '-1', '1e309', '99999999999'] },
  },
  { path: '/dashboard/webhooks/{id}/enable', session: 'dashboard', fields: {} },
  { path: '/dashboard/webhooks/{id}/delete', session: 'dashboard', fields: {} },
  { path: '/dashboard/webhooks/{id}/deliveries/{deliveryId}/retry', session: 'dashboard', fields: {} },
  {
    path: '/dashboard/products',
    session: 'dashboard',
    fields: {
      sku: ['fuzz-form-sku'],
      title: ['T'],
      productId: ['business-cards'],
      options: ['paper=matte', '=', 'a=b\nc'],
      fileUrl: url,
      active: ['on', 'off'],
    },
  },
  {
    path: '/dashboard/products/{id}',
    session: 'dashboard',
    fields: {
      sku: ['fuzz-form-sku'],
      title: ['T'],
      productId: ['business-cards'],
      options: ['x=y'],
      fileUrl: url,
      active: ['on'],
    },
  },
  {
    path: '/dashboard/products/{id}/publish',
    session: 'dashboard',
    fields: {
      storeId: ['sto_00000000000000000000000000', ''],
      title: ['T'],
      price: ['12.50', '0', '-1', '1e309', 'x'],
      country: ['NL', 'nl', 'XX', ''],
      intent: ['margin', 'publish', 'nope'],
    },
  },
  { path: '/dashboard/products/{id}/delete', session: 'dashboard', fields: {} },
  {
    path: '/dashboard/stores/connect',
    session: 'dashboard',
    fields: {
      platform: ['WOOCOMMERCE', 'SHOPIFY', 'NOPE'],
      storeUrl: url,
      consumerKey: ['ck_x'],
      consumerSecret: ['cs_x'],
    },
  },
  {
    path: '/dashboard/stores/request',
    session: 'dashboard',
    fields: { platform: ['WOOCOMMERCE', 'NOPE'], storeUrl: url },
  },
  {
    path: '/dashboard/stores/install',
    session: 'dashboard',
    fields: { platform: ['SHOPIFY', 'ETSY', 'NOPE'], shop: ['x.myshopify.com', 'evil.example'] },
  },
  { path: '/dashboard/stores/{id}/sync', session: 'dashboard', fields: {} },
  { path: '/dashboard/stores/{id}/disconnect', session: 'dashboard', fields: {} },
  { path: '/dashboard/stores/{id}/ingests/{ingestId}/retry', session: 'dashboard', fields: {} },
  {
    path: '/dashboard/stores/{id}/listings/product',
    session: 'dashboard',
    fields: { sku: ['S'], title: ['T'], productId: ['business-cards'], fileUrl: url },
  },
  {
    path: '/dashboard/stores/{id}/sandbox-orders',
    session: 'dashboard',
    fields: {
      sku: ['fuzz-sku', 'FUZZ-SKU', '', ' '],
      quantity: ['250', '0', '-1', '1e309', 'x'],
      paid: ['on', 'off'],
      listing: ['', 'sbp_nope', 'x'.repeat(101)],
    },
  },
  {
    path: '/dashboard/stores/{id}/sandbox-listings',
    session: 'dashboard',
    fields: { title: ['Tulips', '', 'x'.repeat(300)], sku: ['FUZZ-SKU', '', ' ', 'x'.repeat(101)] },
  },
  {
    path: '/dashboard/stores/{id}/listings/map',
    session: 'dashboard',
    fields: {
      externalProductId: ['311', '', 'x'.repeat(101)],
      externalVariantId: ['', '7', 'x'.repeat(101)],
      resellerProduct: ['POSTER-TULIPS', '', 'rp_nope'],
    },
  },
  { path: '/dashboard/stores/{id}/links/{linkId}/delete', session: 'dashboard', fields: {} },
  {
    path: '/dashboard/stores/{id}/ingests/retry-skipped',
    session: 'dashboard',
    fields: { externalProductId: ['311', '', 'x'.repeat(101)] },
  },
  { path: '/dashboard/orders/{id}/cancel', session: 'dashboard', fields: {} },
  { path: '/dashboard/orders/{id}/lines/{line}/file', session: 'dashboard', fields: { fileUrl: url } },
];
/**
 * Dashboard forms left out on purpose: signing out would end the session every other form is fuzzed with (it has its
 * own tests).
 */
const NOT_FUZZED = ['/dashboard/sign-out'];

interface FuzzRequest {
  target: string;
  headers: Record<string, string>;
  body: string;
}

interface Session {
  cookie: string;
  csrf: string;
  ids: Record<string, string[]>;
}

function requestArbitrary(op: FormOp, session: Session): fc.Arbitrary<FuzzRequest> {
  const params = [...op.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!);
  const path = fc.tuple(
    ...params.map((name) => {
      const known = session.ids[name] ?? [];
      const shaped = known.length
        ? fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...known) }, { weight: 1, arbitrary: hostileShortString })
        : hostileShortString;
      return urlComponent(shaped.filter((s) => s.length <= 500)).map((v) => [name, v] as const);
    }),
  );
  const value = (name: string) => {
    const known = op.fields[name] ?? [];
    return known.length
      ? fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...known) }, { weight: 1, arbitrary: hostileShortString })
      : hostileShortString;
  };
  const pairs = fc.tuple(
    ...Object.keys(op.fields).map((name) =>
      fc.option(
        fc.array(value(name), { minLength: 1, maxLength: 2 }).map((vs) => vs.map((v) => [name, v] as [string, string])),
        { freq: 6 },
      ),
    ),
  );
  const extra = fc.oneof(
    { weight: 4, arbitrary: fc.constant<Array<[string, string]>>([]) },
    {
      weight: 1,
      arbitrary: fc.array(
        fc.tuple(
          fc.oneof(fc.constantFrom('__proto__', 'constructor', '_csrf', 'mode'), hostileShortString),
          hostileShortString,
        ),
        { minLength: 1, maxLength: 3 },
      ),
    },
  );
  // Mostly the session's token (so the forms are reached), sometimes none or a wrong one.
  const csrf = fc.oneof(
    { weight: 8, arbitrary: fc.constant<string | null>(session.csrf) },
    { weight: 1, arbitrary: fc.constant<string | null>(null) },
    { weight: 1, arbitrary: hostileShortString },
  );
  const origin = fc.oneof(
    { weight: 8, arbitrary: fc.constant<Record<string, string>>({}) },
    {
      weight: 1,
      arbitrary: fc.constantFrom<Record<string, string>>(
        { origin: 'https://evil.example' },
        { origin: 'null' },
        { 'sec-fetch-site': 'cross-site' },
      ),
    },
  );
  const body = fc.oneof(
    {
      weight: 8,
      arbitrary: fc.tuple(pairs, extra, csrf).map(([p, x, c]) => ({
        kind: 'form' as const,
        pairs: [
          ...p.flatMap((v) => v ?? []),
          ...x,
          ...(c !== null && op.session === 'dashboard' ? [['_csrf', c] as [string, string]] : []),
        ],
      })),
    },
    {
      weight: 1,
      arbitrary: fc.tuple(brokenEncoding, brokenEncoding).map(([a, b]) => ({
        kind: 'raw' as const,
        text: `a=${a}&${b}=&&=${a}`,
        type: 'application/x-www-form-urlencoded',
      })),
    },
    {
      weight: 1,
      arbitrary: fc
        .constantFrom('{"mode":"live"}', '\u0000', 'x'.repeat(40_000))
        .map((text) => ({ kind: 'raw' as const, text, type: 'application/json' })),
    },
  );
  return fc.tuple(path, body, origin).map(([ps, b, o]) => {
    let target = op.path;
    for (const [name, v] of ps) target = target.replace(`{${name}}`, v);
    const headers: Record<string, string> = {
      'user-agent': USER_AGENT,
      ...o,
      ...(op.session === 'dashboard' ? { cookie: session.cookie } : {}),
    };
    if (b.kind === 'form')
      return {
        target,
        headers: { ...headers, 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams(b.pairs).toString(),
      };
    return { target, headers: { ...headers, 'content-type': b.type }, body: b.text };
  });
}

async function problemWith(
  t: TestService,
  op: FormOp,
  request: FuzzRequest,
  statuses: Map<number, number>,
): Promise<string | undefined> {
  let res: RawResponse;
  try {
    res = await rawRequest(t.baseUrl, {
      method: 'POST',
      target: request.target,
      headers: request.headers,
      body: request.body,
    });
  } catch (err) {
    return `the request failed: ${(err as Error).message}`;
  }
  statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
  if (res.status >= 500) return `${res.status}: ${res.text.slice(0, 300)}`;
  if (res.status === 429 && (!op.throttled || !res.headers['retry-after']))
    return `429 on a form that does not throttle, or without Retry-After`;
  if (res.status < 400) return undefined;
  if (res.text.startsWith('<!doctype html>')) return undefined;
  try {
    const body = JSON.parse(res.text) as { error?: { code?: unknown; message?: unknown } };
    if (typeof body.error?.code === 'string' && typeof body.error.message === 'string') return undefined;
  } catch {
    // below
  }
  return `${res.status} neither a page nor the error shape: ${res.text.slice(0, 300)}`;
}

/**
 * The declared forms (POST pages) from the app's table of entry points, with `{param}`s: what the form list must cover.
 */
function declaredForms(t: TestService): string[] {
  return entryPointsOf(t.service.app)
    .pages()
    .filter((p) => p.method === 'post')
    .map((p) => p.path);
}

for (const backend of ['pglite', 'postgres+redis'] as const) {
  describe(`fuzzing the browser forms (no 500, a page or the error shape) [${backend}]`, function () {
    this.timeout(scaled(TIME_MS + 90_000));
    withoutNock();
    let t: TestService;
    let session: Session;
    before(async function () {
      t = await startTestService(this, backend, { RATE_LIMIT_PER_MINUTE: '1000000' });
      const { id, key } = await t.reseller();
      const hook = await t.api(key, 'POST', '/webhooks', { url: 'https://localhost:9/hooks', events: ['*'] });
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
      const link = new URL((await t.api(key, 'POST', '/dashboard-links')).body.data.url).pathname;
      const signIn = await rawRequest(t.baseUrl, {
        method: 'POST',
        target: link,
        headers: { 'user-agent': USER_AGENT },
      });
      expect(signIn.status).to.equal(303);
      const cookie = signIn.headers['set-cookie']!.split(';')[0]!;
      const home = await rawRequest(t.baseUrl, {
        method: 'GET',
        target: '/dashboard',
        headers: { 'user-agent': USER_AGENT, cookie },
      });
      const csrf = /name="_csrf" value="([^"]+)"/.exec(home.text)![1]!;
      const spare = new URL((await t.api(key, 'POST', '/dashboard-links')).body.data.url).pathname.split('/').pop()!;
      session = {
        cookie,
        csrf,
        ids: {
          id: [
            hook.body.data.id,
            product.body.data.id,
            order.body.data.id,
            'fuzz-sku',
            'sto_00000000000000000000000000',
            id,
          ],
          token: [spare, 'not-a-link'],
          line: ['0', '1', '-1'],
          deliveryId: ['dlv_0'],
          ingestId: ['sin_0'],
        },
      };
    });
    after(async () => t?.close());

    it('fuzzes every declared form (a new one must be added here)', () => {
      const listed = FORMS.map((f) => f.path);
      expect(declaredForms(t)).to.include.members([
        '/dashboard/login/{token}',
        '/dashboard/mode',
        '/dashboard/sign-out',
        '/dashboard/webhooks',
        '/admin/sign-in',
      ]);
      expect(declaredForms(t).filter((p) => !listed.includes(p) && !NOT_FUZZED.includes(p))).to.deep.equal([]);
    });

    it(`answers hostile form posts without a 500 (FUZZ_SEED=${SEED}, ${RUNS} runs per form, ${TIME_MS} ms)`, async () => {
      const deadline = Date.now() + TIME_MS;
      const failures: string[] = [];
      const statuses = new Map<number, number>();
      for (const [i, op] of FORMS.entries()) {
        const sliceEnd = Date.now() + Math.max(100, (deadline - Date.now()) / (FORMS.length - i));
        let sentHere = 0;
        const result = await fc.check(
          fc.asyncProperty(requestArbitrary(op, session), async (request) => {
            if (sentHere > 0 && Date.now() > sliceEnd) return;
            sentHere++;
            const problem = await problemWith(t, op, request, statuses);
            if (problem)
              throw new Error(
                `${problem}\n      request: POST ${request.target.slice(0, 200)} ${JSON.stringify(request.headers)} ${JSON.stringify(request.body.slice(0, 300))}`,
              );
          }),
          { seed: createHash('sha256').update(`${SEED}:${op.path}`).digest().readInt32BE(0), numRuns: RUNS },
        );
        if (result.failed)
          failures.push(
            `POST ${op.path} (FUZZ_SEED=${SEED}): ${result.errorInstance instanceof Error ? result.errorInstance.message : String(result.errorInstance)}`,
          );
      }
      expect(failures, `\n${failures.join('\n')}\n`).to.deep.equal([]);
      // The forms were reached (not all refused at the door), and the session still works.
      expect(
        [...statuses.keys()].filter((s) => s < 400),
        'successes and redirects',
      ).not.to.be.empty;
      expect(
        (
          await rawRequest(t.baseUrl, {
            method: 'GET',
            target: '/dashboard',
            headers: { 'user-agent': USER_AGENT, cookie: session.cookie },
          })
        ).status,
      ).to.equal(200);
    });
  });
}
