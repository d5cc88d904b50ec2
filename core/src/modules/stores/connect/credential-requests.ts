import type { Connector } from '@print-api/connector-kit';
import { z } from 'zod';
import { Refusal, rejected } from '../../../kernel/refusal.ts';
import { newId } from '../../../infra/ids.ts';
import type { Tenant } from '../../../kernel/tenant.ts';
import { answeringFor } from './connector-errors.ts';
import { platformSlug } from '../connector-registry.ts';
import type { StoreConnections } from './store-connections.ts';
import { invalidRequest } from '../../../web/validation.ts';
import { issueSentence } from '../../../web/plain-issues.ts';
import type { StoresContext } from '../stores-context.ts';

/** How long a merchant has to approve a connection request on the platform. */
const REQUEST_TTL_MS = 60 * 60 * 1000;

/** What a request's `state` carries, sealed (AES-GCM): nobody can read or forge it. */
interface RequestState {
  r: string;
  m: Tenant['mode'];
  p: string;
  i: unknown;
  u: string | null;
  e: number;
  /** The nonce of the request's row in `credential_request_returns` (only when it has a returnUrl). */
  n?: string;
}

/** `returnUrl` of a credential request: where the merchant goes after the platform. */
export const returnUrlSchema = z
  .url({ protocol: /^https?$/, message: 'must be an http(s) URL' })
  .max(2048)
  .optional();

export interface CredentialRequestsDeps extends Pick<StoresContext, 'db' | 'connectors' | 'box' | 'context'> {
  connections: StoreConnections;
}

/**
 * Key-issuing connect flows (a connector's `credentialRequest`, e.g. WooCommerce's
 * `/wc-auth/v1/authorize`): a reseller asks for a request and sends the merchant to the
 * platform; the platform POSTs the credentials to a callback URL carrying the sealed state
 * (which reseller, which store, until when); the connector checks them with the platform and
 * the store is saved exactly as `POST /stores` saves it; the merchant is then sent back.
 */
export class CredentialRequests {
  readonly #deps: CredentialRequestsDeps;

  constructor(deps: CredentialRequestsDeps) {
    this.#deps = deps;
  }

  /** `POST /stores/credential-requests {platform, returnUrl?, ...input}`: where to send the merchant. */
  async begin(
    tenant: Tenant,
    platform: string,
    fields: Record<string, unknown>,
  ): Promise<{ redirectUrl: string; expiresAt: string }> {
    const connector = this.#deps.connections.connector(platform);
    const flow = connector.credentialRequest;
    if (!flow)
      throw rejected(
        'unsupported_platform',
        `${connector.manifest.displayName} stores connect with pasted credentials (POST /stores).`,
        [{ field: 'platform', code: 'unsupported_platform' }],
      );
    const { returnUrl, ...rest } = fields;
    const back = returnUrlSchema.safeParse(returnUrl);
    if (!back.success)
      throw new Refusal('invalid_request', issueSentence('returnUrl', back.error.issues[0]!), [
        { field: 'returnUrl', code: 'invalid_url' },
      ]);
    const input = flow.inputSchema.safeParse(rest);
    if (!input.success) {
      throw invalidRequest(
        input.error.issues,
        'body',
        `The ${connector.manifest.displayName} connection fields are invalid`,
      );
    }
    const expiresAt = Date.now() + REQUEST_TTL_MS;
    const nonce = back.data ? newId('crq') : undefined;
    if (nonce) {
      await this.#deps.db
        .insertInto('credential_request_returns')
        .values({ id: nonce, reseller_id: tenant.resellerId, expires_at: new Date(expiresAt), created_at: new Date() })
        .execute();
    }
    const state = this.#deps.box.sealJson({
      r: tenant.resellerId,
      m: tenant.mode,
      p: platform,
      i: input.data,
      u: back.data ?? null,
      e: expiresAt,
      ...(nonce ? { n: nonce } : {}),
    } satisfies RequestState);
    const ctx = this.#deps.context(platform);
    const callbackUrl = `${ctx.publicUrl}/connectors/${platformSlug(platform)}/credentials/${state}`;
    const { redirectUrl } = await answeringFor(
      connector.manifest.displayName,
      'credentials',
      () => flow.begin(ctx, { input: input.data, state, callbackUrl, returnUrl: `${callbackUrl}/return` }),
      ctx.logger,
    );
    return { redirectUrl, expiresAt: new Date(expiresAt).toISOString() };
  }

  /** The platform's callback: the connector checks the credentials; the store is saved and its webhooks registered. */
  async receive(
    slug: string,
    state: string,
    req: { headers: Record<string, string | undefined>; rawBody: Buffer },
  ): Promise<{ storeId: string }> {
    const connector = this.#deps.connectors.bySlug(slug);
    const request = this.#open(connector, state);
    if (!connector?.credentialRequest || !request)
      throw new Refusal('unknown_credential_request', 'This connection request is unknown or has expired.');
    const flow = connector.credentialRequest;
    const ctx = this.#deps.context(request.p);
    const connection = await answeringFor(
      connector.manifest.displayName,
      'credentials',
      () => flow.receive(ctx, { input: request.i, state, headers: req.headers, rawBody: req.rawBody }),
      ctx.logger,
    );
    const row = await this.#deps.connections.saveConnection(
      { resellerId: request.r, mode: request.m },
      request.p,
      connection,
    );
    if (request.n) {
      await this.#deps.db
        .updateTable('credential_request_returns')
        .set({ store_id: row.id, completed_at: new Date() })
        .where('id', '=', request.n)
        .where('completed_at', 'is', null)
        .execute();
    }
    return { storeId: row.id };
  }

  /**
   * Where the merchant goes after the platform: the reseller's `returnUrl` (with the platform's
   * query) once this request connected a store, and once only (taking it is one conditional
   * UPDATE); null otherwise, and the merchant gets a page, never a redirect.
   */
  async returnTarget(slug: string, state: string, rawQuery: string): Promise<string | null> {
    const request = this.#open(this.#deps.connectors.bySlug(slug), state);
    if (!request?.u || !request.n) return null;
    const taken = await this.#deps.db
      .updateTable('credential_request_returns')
      .set({ returned_at: new Date() })
      .where('id', '=', request.n)
      .where('reseller_id', '=', request.r)
      .where('completed_at', 'is not', null)
      .where('returned_at', 'is', null)
      .returning('id')
      .executeTakeFirst();
    if (!taken) return null;
    const url = new URL(request.u);
    for (const [k, v] of new URLSearchParams(rawQuery)) url.searchParams.append(k, v);
    return url.toString();
  }

  /** Maintenance: requests past their hour (and a day's grace) are of no use to anyone. */
  async purgeExpired(): Promise<void> {
    await this.#deps.db
      .deleteFrom('credential_request_returns')
      .where('expires_at', '<', new Date(Date.now() - 24 * 3600_000))
      .execute();
  }

  #open(connector: Connector<any> | undefined, state: string): RequestState | null {
    try {
      const request = this.#deps.box.openJson<RequestState>(state);
      if (!connector || request.p !== connector.manifest.platform || request.e < Date.now()) return null;
      return request;
    } catch {
      return null;
    }
  }
}
