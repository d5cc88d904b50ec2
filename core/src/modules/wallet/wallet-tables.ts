import type { ColumnType, Kysely } from 'kysely';
import { sql } from 'kysely';
import type { Mode } from '../../kernel/tenant.ts';

export type LedgerKind = 'top_up' | 'order_payment' | 'order_refund' | 'adjustment';

/** One row per (reseller, mode): the lock target and the running balance. */
export interface WalletsTable {
  reseller_id: string;
  mode: Mode;
  balance_cents: number;
  updated_at: ColumnType<Date, Date | undefined, Date>;
}

/** Append-only: every movement of money with the balance right after it. */
export interface WalletLedgerTable {
  id: string;
  reseller_id: string;
  mode: Mode;
  kind: LedgerKind;
  amount_cents: number;
  balance_after_cents: number;
  order_id: string | null;
  reference: string | null;
  created_at: ColumnType<Date, Date | undefined, never>;
}

export interface WalletTables {
  wallets: WalletsTable;
  wallet_ledger: WalletLedgerTable;
}

export const walletMigration = {
  async up(db: Kysely<any>): Promise<void> {
    await db.schema
      .createTable('wallets')
      .addColumn('reseller_id', 'text', (c) => c.notNull().references('resellers.id'))
      .addColumn('mode', 'text', (c) => c.notNull().check(sql`mode in ('live', 'test')`))
      .addColumn('balance_cents', 'bigint', (c) => c.notNull().defaultTo(0).check(sql`balance_cents >= 0`))
      .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
      .addPrimaryKeyConstraint('wallets_pk', ['reseller_id', 'mode'])
      .execute();
    await db.schema
      .createTable('wallet_ledger')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('reseller_id', 'text', (c) => c.notNull().references('resellers.id'))
      .addColumn('mode', 'text', (c) => c.notNull())
      .addColumn('kind', 'text', (c) =>
        c.notNull().check(sql`kind in ('top_up', 'order_payment', 'order_refund', 'adjustment')`),
      )
      .addColumn('amount_cents', 'bigint', (c) => c.notNull().check(sql`amount_cents <> 0`))
      .addColumn('balance_after_cents', 'bigint', (c) => c.notNull().check(sql`balance_after_cents >= 0`))
      .addColumn('order_id', 'text')
      .addColumn('reference', 'text')
      .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
      .execute();
    await db.schema
      .createIndex('wallet_ledger_page_idx')
      .on('wallet_ledger')
      .columns(['reseller_id', 'mode', 'created_at desc', 'id desc'])
      .execute();
    // One payment and one refund per order at most: a retried placement can never charge twice.
    await sql`create unique index wallet_ledger_order_kind_idx on wallet_ledger (order_id, kind) where order_id is not null`.execute(
      db,
    );
  },
};
