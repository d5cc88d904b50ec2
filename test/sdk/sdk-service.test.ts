import { expect } from 'chai';
import {
  createClient,
  PermissionError,
  RateLimitError,
  UnprocessableError,
  type WebhookEvent,
} from '../../packages/sdk/src/index.ts';
import { startTestService, type TestService } from '../../core/test/helpers/test-service.ts';
import { waitFor, scaled } from '../../core/test/helpers/wait.ts';

const RECIPIENT = {
  name: 'Jan de Vries',
  email: 'jan@example.nl',
  address1: 'Keizersgracht 1',
  postalCode: '1015 CJ',
  city: 'Amsterdam',
  country: 'NL',
};

describe('the SDK against the running service [pglite]', function () {
  this.timeout(scaled(120_000));
  let t: TestService;
  before(async function () {
    t = await startTestService(this, 'pglite', { PRODUCTION_SIMULATOR_STEP_MS: '100' });
  });
  after(async () => t?.close());

  it('client.events.listen() hands over each event of the key’s mode; a new session with `after` replays what came next', async () => {
    const r = await t.reseller({ mode: 'test' });
    const client = createClient({ apiKey: r.key, baseUrl: `${t.baseUrl}/api/reseller/v1` });
    const seen: WebhookEvent[] = [];
    const session = client.events.listen({ onEvent: (e) => void seen.push(e) });
    await session.ready;
    const product = await client.products.get('business-cards');
    const order = await client.orders.create({
      lines: [{ productId: product.id, quantity: 250, fileUrl: product.sampleFiles![0]!.url }],
      recipient: RECIPIENT,
    });
    await waitFor('order.created', () => seen.some((e) => e.type === 'order.created'));
    session.close();
    await session.done;
    const created = seen.find((e) => e.type === 'order.created')!;
    expect(created).to.include({ testMode: true });
    expect((created.data as { order: { id: string } }).order.id).to.equal(order.id);

    await waitFor('DELIVERED', async () => (await client.orders.get(order.id)).status === 'DELIVERED', 60_000);
    const replayed: string[] = [];
    const again = client.events.listen({ after: created.id, onEvent: (e) => void replayed.push(e.type) });
    await waitFor('the rest of the journey replayed', () => replayed.includes('order.delivered'));
    again.close();
    await again.done;
    expect(replayed).to.deep.equal(['order.submitted', 'order.in_production', 'order.shipped', 'order.delivered']);
  });

  it('a key without webhooks:read cannot listen: the session ends with a PermissionError carrying the API code', async () => {
    const r = await t.reseller({ mode: 'test', scopes: ['orders:read'] });
    const session = createClient({ apiKey: r.key, baseUrl: `${t.baseUrl}/api/reseller/v1` }).events.listen();
    const err = await session.done.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).to.be.instanceOf(PermissionError);
    expect(err).to.include({ status: 403, code: 'insufficient_scope' });
  });

  it('a file URL the API refuses is an UnprocessableError with code invalid_file_url and its details', async () => {
    const r = await t.reseller({ mode: 'test' });
    const client = createClient({ apiKey: r.key, baseUrl: `${t.baseUrl}/api/reseller/v1` });
    const err = await client.orders
      .create({
        lines: [{ productId: 'business-cards', quantity: 250, fileUrl: 'http://files.example/flyer.pdf' }],
        recipient: RECIPIENT,
      })
      .catch((e: unknown) => e);
    expect(err).to.be.instanceOf(UnprocessableError);
    expect((err as UnprocessableError).code).to.equal('invalid_file_url');
    expect((err as UnprocessableError).details.map((d) => d.code)).to.include('invalid_file_url');
  });
});

describe('the SDK against a rate-limited service [pglite]', function () {
  this.timeout(scaled(120_000));
  let t: TestService;
  before(async function () {
    t = await startTestService(this, 'pglite', { RATE_LIMIT_PER_MINUTE: '2' });
  });
  after(async () => t?.close());

  it('reads the real Retry-After of a 429 and, past maxRetryDelayMs, throws a RateLimitError with it', async () => {
    const r = await t.reseller({ mode: 'test' });
    const retries: number[] = [];
    const client = createClient({
      apiKey: r.key,
      baseUrl: `${t.baseUrl}/api/reseller/v1`,
      maxRetryDelayMs: 0,
      onRetry: (i) => retries.push(i.delayMs),
    });
    await client.me();
    await client.me();
    const err = await client.me().catch((e: unknown) => e);
    expect(err).to.be.instanceOf(RateLimitError);
    expect((err as RateLimitError).code).to.equal('rate_limited');
    expect((err as RateLimitError).retryAfterSeconds).to.be.within(1, 60);
    expect(retries).to.deep.equal([]);
  });
});
