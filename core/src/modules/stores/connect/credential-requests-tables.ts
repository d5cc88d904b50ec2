import type { ColumnType, Kysely } from 'kysely';

/**
 * The key-issuing connect requests that named a `returnUrl`: the merchant is sent there only at
 * the end of a completed flow of that request (the platform handed over credentials that
 * connected a store), and only once. Without it, our own domain would redirect anywhere a
 * reseller asked for an hour (an open redirect).
 */
export interface CredentialRequestReturnsTable {
  /** The request's nonce, sealed in its state. */
  id: string;
  reseller_id: string;
  /** The store the request connected; null until then. */
  store_id: string | null;
  completed_at: Date | null;
  /** When the merchant was sent on to the returnUrl: once only. */
  returned_at: Date | null;
  expires_at: Date;
  created_at: ColumnType<Date, Date, never>;
}

export interface CredentialRequestsTables {
  credential_request_returns: CredentialRequestReturnsTable;
}

export const credentialRequestReturnsMigration = {
  async up(db: Kysely<any>): Promise<void> {
    await db.schema
      .createTable('credential_request_returns')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('reseller_id', 'text', (c) => c.notNull().references('resellers.id'))
      .addColumn('store_id', 'text')
      .addColumn('completed_at', 'timestamptz')
      .addColumn('returned_at', 'timestamptz')
      .addColumn('expires_at', 'timestamptz', (c) => c.notNull())
      .addColumn('created_at', 'timestamptz', (c) => c.notNull())
      .execute();
    await db.schema
      .createIndex('credential_request_returns_expires_idx')
      .on('credential_request_returns')
      .column('expires_at')
      .execute();
  },
  async down(db: Kysely<any>): Promise<void> {
    await db.schema.dropTable('credential_request_returns').execute();
  },
};
