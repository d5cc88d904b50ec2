import { expect } from 'chai';
import type { ProductionHandoff, ProductionPartner } from '../../src/modules/production/production-partner.ts';
import type { TestHttpsServer } from '../helpers/https-server.ts';
import { describeEachBackend } from '../helpers/test-service.ts';
import { until } from '../queue/queue-adapters.ts';
import { orderBody, placeOrder, RECIPIENT, startFileServer } from './orders-helpers.ts';
import { scaled } from '../helpers/wait.ts';

/** A print facility that takes every order, except that it refuses an order for BUSY the first time it comes. */
const BUSY = 'Busy Day';
const submitted: string[] = [];
const refused = new Set<string>();
const partner: ProductionPartner = {
  name: 'facility',
  async submit(handoff: ProductionHandoff) {
    submitted.push(handoff.orderId);
    if (handoff.recipient.name === BUSY && !refused.has(handoff.orderId)) {
      refused.add(handoff.orderId);
      throw new Error('facility busy');
    }
    return { reference: `fac-${handoff.orderId}` };
  },
};

describe('production hand-off', function () {
  this.timeout(scaled(60_000));
  let files: TestHttpsServer;
  before(async () => {
    files = await startFileServer();
  });
  after(() => files.close());

  describeEachBackend(
    'in batches',
    (get) => {
      it('hands every paid order to the facility once, and retries only the one it refused', async () => {
        const t = get();
        const r = await t.reseller();
        await t.admin('POST', `/resellers/${r.id}/wallet/top-ups`, { amountCents: 10_000_000 });
        const first = (await placeOrder(t, r.key, orderBody(files))).body.data.id as string;
        await until(
          async () =>
            (
              await t.service.db
                .selectFrom('orders')
                .select('handed_off_at')
                .where('id', '=', first)
                .executeTakeFirstOrThrow()
            ).handed_off_at !== null,
        );
        submitted.length = 0;
        // Ten orders at once (handed off in batches); the facility refuses one of them the first time.
        const placed = await Promise.all(
          Array.from({ length: 10 }, (_, i) =>
            placeOrder(t, r.key, orderBody(files, i === 4 ? { recipient: { ...RECIPIENT, name: BUSY } } : {})),
          ),
        );
        const ids = placed.map((p) => p.body.data.id as string);
        await until(async () => {
          const rows = await t.service.db.selectFrom('orders').select('handed_off_at').where('id', 'in', ids).execute();
          return rows.every((row) => row.handed_off_at !== null);
        }, 20_000);
        const rows = await t.service.db
          .selectFrom('orders')
          .select(['id', 'production_partner', 'production_reference'])
          .where('id', 'in', ids)
          .execute();
        expect(rows.map((row) => [row.production_partner, row.production_reference])).to.have.deep.members(
          ids.map((id) => ['facility', `fac-${id}`]),
        );
        // Each order submitted once, except the refused one, submitted again by the retry.
        expect([...submitted].sort()).to.deep.equal([...ids, ids[4]!].sort());
      });
    },
    {},
    { productionPartner: partner },
  );
});
