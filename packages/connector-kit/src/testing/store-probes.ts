import assert from 'node:assert/strict';
import { eventually } from './eventually.ts';
import type { ConformanceService } from './fake-platform.ts';

/** A store order as `GET /stores/{id}/ingests` lists it: what the pipeline did with it. */
export interface Ingest {
  externalOrderId: string;
  status: string;
  orderId: string | null;
  skippedLines: Array<{ sku: string | null; quantity: number }>;
  error: string | null;
  storeUpdatedAt: string | null;
}

/**
 * What a store suite reads of the service through the reseller API, for a reseller `key`: a store's ingests (one,
 * or one reaching a status), the orders, and syncs (one asked, or one whose poll has read the store). `service` is
 * read at each call (a suite's hook starts it after the probes are made).
 *
 * @example
 * ```ts
 * const { ingestIn, orders, syncRead } = storeProbes(() => h);
 * await syncRead(key, storeId);
 * const placed = await ingestIn(key, storeId, orderId, 'placed');
 * ```
 */
export function storeProbes(service: () => ConformanceService) {
  const ingests = async (key: string, storeId: string): Promise<Ingest[]> => {
    const res = await service().api<{ data: Ingest[] }>(key, 'GET', `/stores/${storeId}/ingests?limit=100`);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return res.body.data;
  };
  const ingest = async (key: string, storeId: string, orderId: string) =>
    (await ingests(key, storeId)).find((i) => i.externalOrderId === orderId);
  const ingestIn = async (key: string, storeId: string, orderId: string, status: string) => {
    let last: Ingest | undefined;
    try {
      return await eventually(async () => {
        last = await ingest(key, storeId, orderId);
        return last?.status === status && last;
      }, `ingest ${orderId} ${status}`);
    } catch (err) {
      // What it became instead says why (an error recorded, another status).
      throw new Error(`${(err as Error).message}; it is ${JSON.stringify(last ?? null)}`);
    }
  };
  const orders = async (key: string) =>
    (await service().api<{ data: Array<Record<string, any> & { id: string }> }>(key, 'GET', '/orders?limit=100')).body
      .data;
  const order = async (key: string, id: string) => (await service().api(key, 'GET', `/orders/${id}`)).body.data;

  /** POST /stores/{id}/sync, again while the store's previous poll still holds it (409 sync_in_progress). */
  async function sync(key: string, storeId: string): Promise<string> {
    return eventually(async () => {
      const res = await service().api(key, 'POST', `/stores/${storeId}/sync`);
      if (res.status === 409 && res.body?.error?.code === 'sync_in_progress') return false;
      assert.equal(res.status, 202, JSON.stringify(res.body));
      return res.body.data.requestedAt as string;
    }, 'a sync accepted');
  }

  /** A sync, and its poll's page read (lastPolledAt at or after the request). */
  async function syncRead(key: string, storeId: string): Promise<void> {
    const requestedAt = Date.parse(await sync(key, storeId));
    const polledAt = async () =>
      Date.parse((await service().api(key, 'GET', `/stores/${storeId}`)).body.data.lastPolledAt ?? '');
    await eventually(async () => (await polledAt()) >= requestedAt, 'the sync read');
  }

  return { ingests, ingest, ingestIn, orders, order, sync, syncRead };
}
