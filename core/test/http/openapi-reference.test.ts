import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { API_BASE } from '../../src/http/app.ts';
import { entryPointsOf } from '../../src/http/entry-points.ts';
import type { AnyRoute } from '../../src/web/route.ts';
import { SUBSCRIBABLE_EVENTS } from '../../src/modules/webhooks/webhook-event-types.ts';
import { startTestService, USER_AGENT, type TestService } from '../helpers/test-service.ts';
import { scaled } from '../helpers/wait.ts';

const ROOT = path.resolve(import.meta.dirname, '../../..');

/**
 * The API reference a first integration reads: every operation with realistic examples that
 * match its schemas, reusable schemas as named components, described filters and enums, the
 * events and their signature headers, the rules every call obeys, and a clean Redocly lint.
 */
describe('the OpenAPI reference', function () {
  let t: TestService;
  let doc: any;
  let routes: AnyRoute[];
  before(async function () {
    t = await startTestService(this, 'pglite');
    doc = (await t.api(undefined, 'GET', '/openapi.json')).body;
    routes = entryPointsOf(t.service.app).routes(API_BASE);
  });
  after(() => t?.close());

  it('gives every operation a request example (when it takes a body) and a success example, each valid for its schema', () => {
    for (const route of routes) {
      const name = `${route.method.toUpperCase()} ${route.path}`;
      const op = doc.paths[route.path][route.method];
      if (route.body) {
        const content = op.requestBody.content['application/json'];
        const examples: unknown[] = content.examples
          ? Object.values(content.examples).map((e: any) => e.value)
          : [content.example];
        expect(examples.length, `${name}: request example`).to.be.greaterThan(0);
        for (const example of examples) {
          expect(example, `${name}: request example`).to.not.equal(undefined);
          const parsed = route.body.safeParse(example);
          expect(parsed.success, `${name}: request example: ${parsed.error?.message}`).to.equal(true);
        }
      }
      const successes = Object.entries(route.responses).filter(([status]) => Number(status) < 300);
      expect(successes.length, name).to.be.greaterThan(0);
      for (const [status, response] of successes) {
        if (!response.schema) {
          // A body that is not JSON (the event stream) has an example of its own, as text.
          expect(response.contentType, name).to.be.a('string');
          expect(op.responses[status].content[response.contentType!].example, `${name} ${status}: response example`)
            .to.be.a('string')
            .and.not.equal('');
          continue;
        }
        expect(response.example, `${name} ${status}: response example`).to.not.equal(undefined);
        const parsed = response.schema.safeParse(response.example);
        expect(parsed.success, `${name} ${status}: response example: ${parsed.error?.message}`).to.equal(true);
        expect(op.responses[status].content['application/json'].example).to.deep.equal(
          JSON.parse(JSON.stringify(response.example)),
        );
      }
      for (const [status, response] of Object.entries(op.responses as Record<string, any>)) {
        if (Number(status) < 400) continue;
        const examples = Object.values(response.content['application/json'].examples) as Array<{
          value: { error: { code: string; message: string } };
        }>;
        expect(examples.length, `${name} ${status}`).to.be.greaterThan(0);
        for (const e of examples)
          expect(e.value.error.message, `${name} ${status} ${e.value.error.code}`).to.be.a('string').and.not.equal('');
      }
    }
  });

  it('uses a real catalogue product, a valid Dutch address and a quote with VAT in its examples', async () => {
    const key = (await t.reseller({ mode: 'test' })).key;
    const quoteOp = doc.paths['/quotes'].post;
    const request = quoteOp.requestBody.content['application/json'].example;
    // The example quote is what the service answers for the example request (10 % discount).
    const live = await t.api(key, 'POST', '/quotes', request);
    expect(live.status).to.equal(200);
    expect(quoteOp.responses['200'].content['application/json'].example).to.deep.equal(live.body);
    expect(live.body.data.totals.vatCents).to.be.greaterThan(0);
    const order = doc.paths['/orders'].post.requestBody.content['application/json'].example;
    expect(order.recipient).to.include({ country: 'NL', postalCode: '1015 CJ', city: 'Amsterdam' });
    expect((await t.api(key, 'GET', `/products/${order.lines[0].productId}`)).status).to.equal(200);
  });

  it('names the reusable schemas as components and refers to them instead of copying them', () => {
    const schemas = Object.keys(doc.components.schemas);
    for (const name of [
      'Order',
      'OrderLine',
      'OrderState',
      'OrderStatus',
      'Quote',
      'Product',
      'ProductDetail',
      'Recipient',
      'LineInput',
      'Error',
      'ErrorDetail',
      'Wallet',
      'LedgerEntry',
      'ResellerProduct',
      'WebhookEndpoint',
      'WebhookDelivery',
      'Store',
      'Tracking',
    ]) {
      expect(schemas, name).to.include(name);
    }
    const ref = (op: any, status: string) => op.responses[status].content['application/json'].schema.properties.data;
    expect(ref(doc.paths['/orders/{id}'].get, '200')).to.deep.equal({ $ref: '#/components/schemas/Order' });
    expect(ref(doc.paths['/quotes'].post, '200')).to.deep.equal({ $ref: '#/components/schemas/Quote' });
    expect(doc.paths['/orders'].post.requestBody.content['application/json'].schema).to.deep.equal({
      $ref: '#/components/schemas/PlaceOrderRequest',
    });
    expect(doc.components.schemas.PlaceOrderRequest.properties.recipient).to.deep.equal({
      $ref: '#/components/schemas/Recipient',
    });
    // No inline copy of a named shape: no schema with the Order's or the Quote's properties outside its component.
    const text = JSON.stringify(doc.paths, (key, value) =>
      key === 'example' || key === 'examples' ? undefined : value,
    );
    expect(text).to.not.include('"carrierContact"');
    expect(text).to.not.include('"unitPublicPrice"');
  });

  it('describes every parameter (filters included) and every enum of a named schema', () => {
    for (const [p, ops] of Object.entries(doc.paths as Record<string, Record<string, any>>)) {
      for (const [method, op] of Object.entries(ops)) {
        for (const param of op.parameters)
          expect(param.description, `${method} ${p} ${param.name}`).to.be.a('string').and.not.equal('');
      }
    }
    expect(doc.components.schemas.OrderState.description).to.include('AWAITING_FUNDS');
    expect(doc.components.schemas.OrderStatus.description).to.include('DELIVERED');
    const states = doc.paths['/orders'].get.parameters.find((q: any) => q.name === 'state');
    expect(states.schema.enum).to.include('SUBMITTED');
  });

  it('describes every event a webhook endpoint receives, with the signature headers', () => {
    for (const event of [...SUBSCRIBABLE_EVENTS.filter((e) => e !== '*'), 'ping']) {
      const hook = doc.webhooks[event]?.post;
      expect(hook, event).to.not.equal(undefined);
      const headers = hook.parameters.map((h: any) => h.name);
      expect(headers).to.include.members([
        'X-Service-Event',
        'X-Service-Delivery',
        'X-Service-Attempt',
        'X-Service-Timestamp',
        'X-Service-Signature',
      ]);
      const example = hook.requestBody.content['application/json'].example;
      expect(example.type).to.equal(event);
      expect(example).to.have.keys('id', 'type', 'createdAt', 'testMode', 'data');
    }
    const signature = doc.webhooks['order.shipped'].post.parameters.find((h: any) => h.name === 'X-Service-Signature');
    expect(signature.description).to.include('HMAC-SHA256').and.include('<X-Service-Timestamp>.<raw body>');
    expect(
      doc.webhooks['order.shipped'].post.requestBody.content['application/json'].example.data.tracking.carrier,
    ).to.equal('PostNL');
  });

  it('states the User-Agent and rate-limit rules, and links the error reference from /docs', async () => {
    const description = doc.info.description as string;
    expect(description).to.include('User-Agent').and.include('1010').and.include('python-requests');
    expect(description).to.include('RateLimit-Remaining').and.include('Retry-After').and.include('120');
    expect(description).to.include('/api/reseller/v1/docs/errors');
    const page = await fetch(`${t.baseUrl}/api/reseller/v1/docs`, { headers: { 'user-agent': USER_AGENT } });
    expect(await page.text()).to.include('href="/api/reseller/v1/docs/errors"');
    const errors = await fetch(`${t.baseUrl}/api/reseller/v1/docs/errors`, { headers: { 'user-agent': USER_AGENT } });
    expect(errors.status).to.equal(200);
    const html = await errors.text();
    for (const code of ['1010', 'invalid_file_url', 'rate_limited', 'idempotency_key_reused'])
      expect(html).to.include(`<code>${code}</code>`);
  });

  it('passes `redocly lint` with the recommended rules, without a warning', async function () {
    this.timeout(scaled(120_000));
    const dir = mkdtempSync(path.join(tmpdir(), 'print-api-lint-'));
    try {
      const file = path.join(dir, 'openapi.json');
      writeFileSync(file, JSON.stringify(doc));
      const cli = path.join(ROOT, 'node_modules/@redocly/cli/bin/cli.js');
      const run = await promisify(execFile)(
        process.execPath,
        [cli, 'lint', file, '--config', path.join(ROOT, 'redocly.yaml'), '--format', 'json'],
        {
          cwd: dir,
          env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
          maxBuffer: 16 * 1024 * 1024,
        },
      ).catch((err: { stdout?: string; stderr?: string }) => ({
        stdout: err.stdout ?? '',
        stderr: err.stderr ?? '',
        failed: true,
      }));
      const report = JSON.parse(run.stdout.slice(run.stdout.indexOf('{')));
      const problems = (report.problems as Array<{ ruleId: string; severity: string; message: string }>).map(
        (p) => `${p.severity} ${p.ruleId}: ${p.message}`,
      );
      expect(problems).to.deep.equal([]);
      expect('failed' in run).to.equal(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('shows the event stream as it arrives: ready, then each event as id, type and the body a webhook delivery sends', () => {
    const example = doc.paths['/events/stream'].get.responses['200'].content['text/event-stream'].example as string;
    const messages = example.split('\n\n').filter((m) => m.trim() !== '');
    expect(messages[0]).to.match(/^retry: \d+\nevent: ready\ndata: \{/);
    const [, id, type, data] = /^id: (evt_\S+)\nevent: (\S+)\ndata: (.+)$/.exec(messages[1]!) ?? [];
    const body = JSON.parse(data!);
    expect(body).to.include({ id, type, testMode: true });
    expect(body.data.order.id).to.match(/^ord_/);
    expect(messages.at(-1)).to.equal(': keep-alive');
  });
});
