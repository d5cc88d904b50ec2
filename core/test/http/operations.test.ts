import { expect } from 'chai';
import { describeEachBackend } from '../helpers/test-service.ts';

describeEachBackend('operations: queue dashboard and metrics', (get, backend) => {
  it('serves the queue dashboard behind the back-office token', async () => {
    const t = get();
    const anonymous = await fetch(`${t.baseUrl}/admin/v1/queues`, { headers: { 'user-agent': 'ops-test' } });
    expect(anonymous.status).to.equal(401);
    const res = await fetch(`${t.baseUrl}/admin/v1/queues`, {
      headers: { authorization: `Bearer ${t.service.adminToken}`, 'user-agent': 'ops-test' },
    });
    expect(res.status).to.equal(200);
    const text = await res.text();
    if (backend === 'pglite') {
      const names = (JSON.parse(text) as { data: { queues: Array<{ name: string }> } }).data.queues.map((q) => q.name);
      expect(names).to.include.members(['production', 'production-simulator']);
    } else {
      expect(text).to.match(/<html|<!DOCTYPE html/i);
    }
  });

  it('exposes Prometheus metrics: requests by route and status, queue depth, process defaults', async () => {
    const t = get();
    const { key } = await t.reseller();
    await t.api(key, 'GET', '/me');
    const text = await (await fetch(`${t.baseUrl}/metrics`)).text();
    expect(text).to.match(
      /http_request_duration_seconds_count\{method="GET",route="\/api\/reseller\/v1\/me",status="200"\} \d+/,
    );
    expect(text).to.match(/queue_jobs\{queue="production",state="waiting"\} \d+/);
    expect(text).to.contain('process_cpu_user_seconds_total');
  });
});
