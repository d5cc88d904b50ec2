import type { ColumnType, Kysely } from 'kysely';
import { sql } from 'kysely';

/** The reseller's saved card: a gateway reference (sealed at rest), never card numbers. */
export interface CardsTable {
  reseller_id: string;
  gateway: string;
  payment_method_sealed: string;
  brand: string | null;
  last4: string | null;
  created_at: ColumnType<Date, Date | undefined, Date>;
}

export interface PaymentsTables {
  cards: CardsTable;
}

export const paymentsMigration = {
  async up(db: Kysely<any>): Promise<void> {
    await db.schema
      .createTable('cards')
      .addColumn('reseller_id', 'text', (c) => c.primaryKey().references('resellers.id'))
      .addColumn('gateway', 'text', (c) => c.notNull())
      .addColumn('payment_method_sealed', 'text', (c) => c.notNull())
      .addColumn('brand', 'text')
      .addColumn('last4', 'text')
      .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
      .execute();
  },
};
