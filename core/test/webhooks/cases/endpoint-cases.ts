import { expect } from 'chai';
import type { TestService } from '../../helpers/test-service.ts';
import { Receiver } from '../webhook-test-helpers.ts';

/** Endpoints: create, list, read, delete, validation, SSRF at creation, limits, modes, scopes. */
export function endpointCases(get: () => TestService): void {
  let receiver: Receiver;
  let url: string;
  before(async () => {
    receiver = await Receiver.start();
    url = receiver.hook('/hooks');
  });
  after(() => receiver.close());

  it('creates an endpoint and shows its whsec_ secret once, stored encrypted', async () => {
    const t = get();
    const { key } = await t.reseller();
    const created = await t.api(key, 'POST', '/webhooks', {
      url,
      events: ['order.shipped', 'order.created', 'order.shipped'],
    });
    expect(created.status).to.equal(201);
    const secret: string = created.body.data.secret;
    expect(secret).to.match(/^whsec_[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(secret.slice(6), 'base64url')).to.have.length(32);
    expect(created.body.data).to.include({ url, testMode: false, enabled: true, failingSince: null });
    expect(created.body.data.events).to.deep.equal(['order.shipped', 'order.created']);

    const listed = await t.api(key, 'GET', '/webhooks');
    expect(listed.status).to.equal(200);
    expect(listed.body.data).to.have.length(1);
    expect(listed.body.data[0]).to.not.have.property('secret');
    const read = await t.api(key, 'GET', `/webhooks/${created.body.data.id}`);
    expect(read.body.data).to.not.have.property('secret');
    expect(JSON.stringify([listed.body, read.body])).to.not.include(secret.slice(6));

    const row = await t.service.db
      .selectFrom('webhook_endpoints')
      .selectAll()
      .where('id', '=', created.body.data.id)
      .executeTakeFirstOrThrow();
    expect(row.secret_sealed).to.not.include(secret.slice(6));
    expect(row.secret_sealed.startsWith('v1.')).to.equal(true);
  });

  it('accepts ["*"] for every event kind', async () => {
    const t = get();
    const { key } = await t.reseller();
    const created = await t.api(key, 'POST', '/webhooks', { url, events: ['*'] });
    expect(created.status).to.equal(201);
    expect(created.body.data.events).to.deep.equal(['*']);
  });

  it('refuses unknown event kinds with 422 and the allowed values', async () => {
    const t = get();
    const { key } = await t.reseller();
    const res = await t.api(key, 'POST', '/webhooks', { url, events: ['order.created', 'order.exploded', 'ping'] });
    expect(res.status).to.equal(422);
    expect(res.body.error.code).to.equal('invalid_events');
    expect(res.body.error.details.map((d: any) => d.field)).to.deep.equal(['events[1]', 'events[2]']);
    expect(res.body.error.details[0].allowedValues).to.include.members([
      'order.created',
      'order.shipped',
      'order.file_problem',
      '*',
    ]);
  });

  it('refuses a missing or malformed body with 400', async () => {
    const t = get();
    const { key } = await t.reseller();
    expect((await t.api(key, 'POST', '/webhooks', { url })).status).to.equal(400);
    expect((await t.api(key, 'POST', '/webhooks', { url, events: [] })).status).to.equal(400);
    expect((await t.api(key, 'POST', '/webhooks', { url, events: ['*'], extra: 1 })).status).to.equal(400);
  });

  it('refuses non-https URLs and SSRF targets at creation', async () => {
    const t = get();
    const { key } = await t.reseller();
    const cases: Array<[string, string]> = [
      ['http://localhost/hooks', 'scheme_not_allowed'],
      ['ftp://example.com/hooks', 'scheme_not_allowed'],
      ['not a url', 'invalid_url'],
      ['https://127.0.0.1/hooks', 'address_blocked'],
      ['https://10.1.2.3/hooks', 'address_blocked'],
      ['https://192.168.1.10/hooks', 'address_blocked'],
      ['https://169.254.169.254/latest/meta-data', 'address_blocked'],
      ['https://[::1]/hooks', 'address_blocked'],
      ['https://[::ffff:127.0.0.1]/hooks', 'address_blocked'],
      ['https://2130706433/hooks', 'address_blocked'],
      ['https://0x7f.1/hooks', 'address_blocked'],
      ['https://user:pass@example.com/hooks', 'invalid_url'],
    ];
    for (const [bad, code] of cases) {
      const res = await t.api(key, 'POST', '/webhooks', { url: bad, events: ['*'] });
      expect(res.status, bad).to.equal(422);
      expect(res.body.error.code, bad).to.equal('invalid_webhook_url');
      expect(res.body.error.details[0], bad).to.include({ field: 'url', code });
    }
    expect((await t.api(key, 'GET', '/webhooks')).body.data).to.have.length(0);
  });

  it('allows at most 20 endpoints per account and mode', async () => {
    const t = get();
    const { id, key } = await t.reseller();
    for (let i = 0; i < 20; i++)
      expect((await t.api(key, 'POST', '/webhooks', { url: `${url}?n=${i}`, events: ['*'] })).status).to.equal(201);
    const over = await t.api(key, 'POST', '/webhooks', { url, events: ['*'] });
    expect(over.status).to.equal(422);
    expect(over.body.error.code).to.equal('webhook_limit_reached');
    // The sandbox has its own 20.
    const testKey = (await t.admin('POST', `/resellers/${id}/api-keys`, { mode: 'test' })).body.data.key;
    expect((await t.api(testKey, 'POST', '/webhooks', { url, events: ['*'] })).status).to.equal(201);
    // Pages of the list, newest first.
    const first = await t.api(key, 'GET', '/webhooks?limit=15');
    expect(first.body.data).to.have.length(15);
    const second = await t.api(key, 'GET', `/webhooks?limit=15&cursor=${encodeURIComponent(first.body.nextCursor)}`);
    expect(second.body.data).to.have.length(5);
    expect(second.body.nextCursor).to.equal(null);
    // Deleting one makes room again.
    expect((await t.api(key, 'DELETE', `/webhooks/${first.body.data[0].id}`)).status).to.equal(200);
    expect((await t.api(key, 'POST', '/webhooks', { url, events: ['*'] })).status).to.equal(201);
  });

  it('holds the limit under concurrent creations', async () => {
    const t = get();
    const { key } = await t.reseller();
    const results = await Promise.all(
      Array.from({ length: 25 }, (_, i) => t.api(key, 'POST', '/webhooks', { url: `${url}?c=${i}`, events: ['*'] })),
    );
    expect(results.filter((r) => r.status === 201)).to.have.length(20);
    expect(results.filter((r) => r.status === 422)).to.have.length(5);
  });

  it('keeps test and live endpoints apart', async () => {
    const t = get();
    const { id, key } = await t.reseller();
    const testKey = (await t.admin('POST', `/resellers/${id}/api-keys`, { mode: 'test' })).body.data.key;
    const live = (await t.api(key, 'POST', '/webhooks', { url, events: ['*'] })).body.data;
    const sandbox = (await t.api(testKey, 'POST', '/webhooks', { url, events: ['*'] })).body.data;
    expect(sandbox.testMode).to.equal(true);
    expect((await t.api(testKey, 'GET', '/webhooks')).body.data.map((e: any) => e.id)).to.deep.equal([sandbox.id]);
    expect((await t.api(key, 'GET', '/webhooks')).body.data.map((e: any) => e.id)).to.deep.equal([live.id]);
    expect((await t.api(testKey, 'GET', `/webhooks/${live.id}`)).status).to.equal(404);
    expect((await t.api(testKey, 'DELETE', `/webhooks/${live.id}`)).status).to.equal(404);
  });

  it('deletes an endpoint: 200 {id, deleted: true}, then 404', async () => {
    const t = get();
    const { key } = await t.reseller();
    const other = await t.reseller();
    const created = (await t.api(key, 'POST', '/webhooks', { url, events: ['*'] })).body.data;
    expect((await t.api(other.key, 'DELETE', `/webhooks/${created.id}`)).status).to.equal(404);
    const deleted = await t.api(key, 'DELETE', `/webhooks/${created.id}`);
    expect(deleted.status).to.equal(200);
    expect(deleted.body).to.deep.equal({ data: { id: created.id, deleted: true } });
    expect((await t.api(key, 'DELETE', `/webhooks/${created.id}`)).status).to.equal(404);
    expect((await t.api(key, 'GET', `/webhooks/${created.id}`)).status).to.equal(404);
    expect((await t.api(key, 'GET', '/webhooks')).body.data).to.have.length(0);
  });

  it('checks the webhook scopes', async () => {
    const t = get();
    const reader = await t.reseller({ scopes: ['webhooks:read'] });
    expect((await t.api(reader.key, 'GET', '/webhooks')).status).to.equal(200);
    const refused = await t.api(reader.key, 'POST', '/webhooks', { url, events: ['*'] });
    expect(refused.status).to.equal(403);
    const orders = await t.reseller({ scopes: ['orders:read'] });
    expect((await t.api(orders.key, 'GET', '/webhooks')).status).to.equal(403);
  });
}
