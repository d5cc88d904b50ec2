import { eventually } from './eventually.ts';
import type { ConformanceService, FakeStore, OrderSpec } from './fake-platform.ts';

/**
 * Connects a store for the reseller `key` the way a merchant pastes credentials (`POST /stores` with `body`) and
 * answers its id; throws unless the service made it (201). `firstPoll`, when given, is awaited (`eventually`) before
 * answering: the connect-time poll has run (a fake's own record of it).
 */
export async function connectStore(
  service: ConformanceService,
  key: string,
  body: Record<string, unknown>,
  firstPoll?: () => boolean,
): Promise<string> {
  const res = await service.api(key, 'POST', '/stores', body);
  if (res.status !== 201) throw new Error(`connect: ${res.status} ${JSON.stringify(res.body)}`);
  if (firstPoll) await eventually(async () => firstPoll(), 'the first poll');
  return res.body.data.id as string;
}

/** Waits until the service has polled the store once (`lastPolledAt` set): its connect-time poll ran. */
export async function firstPollOf(service: ConformanceService, key: string, storeId: string): Promise<void> {
  await eventually(
    async () => (await service.api(key, 'GET', `/stores/${storeId}`)).body.data.lastPolledAt,
    'the first poll',
  );
}

/**
 * A fake store's order ids, counting up from `first` (as a platform numbers its orders), and its `saveOrder`: the
 * spec saved (`save`) under its own id or the next one, which it answers.
 */
export function countedOrders<S extends OrderSpec>(
  first: number,
  save: (spec: S & { id: string }) => void,
): Pick<FakeStore, 'nextOrderId'> & { saveOrder(spec: S): string } {
  let next = first;
  const nextOrderId = () => String(next++);
  return {
    nextOrderId,
    saveOrder(spec) {
      const id = spec.id ?? nextOrderId();
      save({ ...spec, id });
      return id;
    },
  };
}
