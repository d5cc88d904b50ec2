import { ConnectorError, platformSlug, type EndpointCall } from '@print-api/connector-kit';
import { Refusal } from '../../../kernel/refusal.ts';
import type { StoreConnections } from '../connect/store-connections.ts';
import type { StoreRedactor } from './store-redactor.ts';
import type { StoresContext } from '../stores-context.ts';

export interface ConnectorEndpointsDeps extends Pick<StoresContext, 'db' | 'connectors' | 'context' | 'logger'> {
  connections: StoreConnections;
  redactor: StoreRedactor;
}

/**
 * The connectors' own endpoints (`Connector.endpoints`), at `/connectors/<slug>/<name>`: eBay's marketplace account
 * deletion (a GET challenge, signed POST notifications). The connector checks the call; core answers it, and erases
 * and disconnects the stores of a deleted account (the redaction privacy requests use, on every connection ever made
 * to the store) before it does.
 */
export class ConnectorEndpoints {
  readonly #deps: ConnectorEndpointsDeps;

  constructor(deps: ConnectorEndpointsDeps) {
    this.#deps = deps;
  }

  async call(
    slug: string,
    name: string,
    req: Omit<EndpointCall, 'url'>,
  ): Promise<{ status: 200 | 204; body: Record<string, unknown> | undefined }> {
    const connector = this.#deps.connectors.bySlug(slug);
    const handler = connector?.endpoints?.[name];
    if (!connector || !handler) throw new Refusal('not_found', `No endpoint '${name}' of a connector '${slug}'.`);
    const platform = connector.manifest.platform;
    const ctx = this.#deps.context(platform);
    const url = `${ctx.publicUrl.replace(/\/+$/, '')}/connectors/${platformSlug(platform)}/${name}`;
    let answer;
    try {
      answer = await handler.answer(ctx, { ...req, url });
    } catch (err) {
      if (!(err instanceof ConnectorError)) throw err;
      this.#deps.logger.warn('connector endpoint failed', { platform, endpoint: name, error: err.message });
      throw new Refusal('store_unreachable', `${connector.manifest.displayName} said: ${err.message}`);
    }
    if (!answer.ok) {
      if (answer.problem === 'invalid_request') throw new Refusal('invalid_request', answer.message);
      throw new Refusal('notification_not_verified', answer.message);
    }
    if (answer.accountDeleted) await this.#erase(platform, answer.accountDeleted);
    return answer.body ? { status: 200, body: answer.body } : { status: 204, body: undefined };
  }

  async #erase(platform: string, deleted: { externalIds: string[]; reason: string }): Promise<void> {
    if (deleted.externalIds.length === 0) return;
    const stores = await this.#deps.db
      .selectFrom('stores')
      .select(['id', 'status'])
      .where('platform', '=', platform)
      .where('external_id', 'in', deleted.externalIds)
      .execute();
    for (const store of stores) {
      await this.#deps.redactor.redact(store.id, 'all');
      if (store.status === 'connected') await this.#deps.connections.markDisconnected(store.id, deleted.reason);
    }
    this.#deps.logger.info('platform account deleted', { platform, stores: stores.length });
  }
}
