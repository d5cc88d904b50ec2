import type { StoreConnection } from '@print-api/connector-kit';
import { sql } from 'kysely';
import type { StoresContext } from '../stores-context.ts';
import type { StoreRow } from './store-connections.ts';

/** A store's credentials and webhook secret: sealed at rest, opened for the connector, renewed under a shared lock. */
export class StoreCredentials {
  readonly #ctx: Pick<StoresContext, 'db' | 'box'>;

  constructor(ctx: Pick<StoresContext, 'db' | 'box'>) {
    this.#ctx = ctx;
  }

  /** The connection as the connector needs it (credentials decrypted once per sealed value, parsed anew each time). */
  connection(row: StoreRow): StoreConnection<unknown> {
    const { box } = this.#ctx;
    return {
      id: row.id,
      externalId: row.external_id,
      name: row.name,
      credentials: JSON.parse(box.openRemembered(row.credentials_sealed)) as unknown,
      webhookSecret: row.webhook_secret_sealed ? box.openRemembered(row.webhook_secret_sealed) : undefined,
    };
  }

  /** The store's webhook secret, for checking a delivery's signature (opened once per sealed value). */
  webhookSecret(row: StoreRow): string | undefined {
    return row.webhook_secret_sealed ? this.#ctx.box.openRemembered(row.webhook_secret_sealed) : undefined;
  }

  /**
   * Renews a store's credentials under a lock every process shares (a PostgreSQL advisory lock
   * held by the transaction): `renew` gets the connection as stored at that moment (another
   * process may have just renewed it) and answers new credentials, stored before the lock is
   * released, or null (still good). Answers the credentials in force. Platforms that rotate the
   * refresh token need it: two processes renewing at once would spend the same refresh token twice.
   */
  async renewCredentials(id: string, renew: (current: StoreConnection<unknown>) => Promise<unknown>): Promise<unknown> {
    return this.#ctx.db.transaction().execute(async (trx) => {
      await sql`select pg_advisory_xact_lock(hashtext(${`store-credentials:${id}`}))`.execute(trx);
      const current = this.connection(
        await trx.selectFrom('stores').selectAll().where('id', '=', id).executeTakeFirstOrThrow(),
      );
      const renewed = await renew(current);
      if (renewed === null || renewed === undefined) return current.credentials;
      await trx
        .updateTable('stores')
        .set({ credentials_sealed: this.#ctx.box.sealJson(renewed), updated_at: new Date() })
        .where('id', '=', id)
        .execute();
      return renewed;
    });
  }

  async updateCredentials(id: string, credentials: unknown): Promise<void> {
    await this.#ctx.db
      .updateTable('stores')
      .set({ credentials_sealed: this.#ctx.box.sealJson(credentials), updated_at: new Date() })
      .where('id', '=', id)
      .execute();
  }

  async setWebhookSecret(id: string, secret: string): Promise<void> {
    await this.#ctx.db
      .updateTable('stores')
      .set({ webhook_secret_sealed: this.#ctx.box.seal(secret), updated_at: new Date() })
      .where('id', '=', id)
      .execute();
  }
}
