import { expect } from 'chai';
import { describeMigration } from '../helpers/migration-suite.ts';

const BINARY_BODIES = '0026_store_webhook_bodies_binary';

describeMigration(
  'stored webhook bodies become bytes',
  BINARY_BODIES,
  ({ db: database, migrateBefore, migrateRest }) => {
    it('turns each base64 body into its exact bytes, an erased one into none', async () => {
      const db = database();
      await migrateBefore();
      // A Shopify order past 2^53, and bytes that are not UTF-8: the bytes signed are the bytes kept.
      const bodies = {
        whe_json: Buffer.from('{"id":820982911946154508,"note":"Tulpen \u{1F337}"}'),
        whe_bytes: Buffer.from([0, 0xff, 0xfe, 0x80, 0x0a, 0x5c]),
        whe_erased: Buffer.alloc(0),
      };
      const at = new Date('2026-01-02T03:04:05.000Z');
      await db
        .insertInto('store_webhook_events')
        .values(
          Object.entries(bodies).map(([id, body]) => ({
            id,
            platform: 'SHOPIFY',
            store_id: null,
            event_key: id,
            topic: 'orders/paid',
            headers: '{}',
            raw_body: body.toString('base64'),
            path: '',
            received_at: at,
            processed_at: null,
          })),
        )
        .execute();

      expect(await migrateRest()).to.include(BINARY_BODIES);

      const rows = await db.selectFrom('store_webhook_events').select(['id', 'raw_body']).orderBy('id').execute();
      expect(
        rows.map((r) => [
          r.id,
          Buffer.isBuffer(r.raw_body),
          Buffer.compare(r.raw_body, bodies[r.id as keyof typeof bodies]),
        ]),
      ).to.deep.equal([
        ['whe_bytes', true, 0],
        ['whe_erased', true, 0],
        ['whe_json', true, 0],
      ]);
      // Written as a Buffer, read back the same (both backends' drivers take and give Buffers).
      const large = Buffer.from(JSON.stringify({ id: 820982911946154508n.toString(), pad: 'x'.repeat(20_000) }));
      await db.updateTable('store_webhook_events').set({ raw_body: large }).where('id', '=', 'whe_json').execute();
      const back = await db
        .selectFrom('store_webhook_events')
        .select('raw_body')
        .where('id', '=', 'whe_json')
        .executeTakeFirstOrThrow();
      expect(back.raw_body.equals(large)).to.equal(true);
    });
  },
);
