import type { Connector } from '@print-api/connector-kit';
import { z } from 'zod';
import { Refusal, rejected } from '../../../kernel/refusal.ts';
import type { Tenant } from '../../../kernel/tenant.ts';
import { answeringFor } from './connector-errors.ts';
import { platformSlug } from '../connector-registry.ts';
import type { StoreConnections, StoreRow } from './store-connections.ts';
import { invalidRequest } from '../../../web/validation.ts';
import { issueSentence } from '../../../web/plain-issues.ts';
import type { StoresContext } from '../stores-context.ts';

/** How long an install link (and the browser's install cookie) stays good. */
const INSTALL_TTL_MS = 30 * 60 * 1000;
const COOKIE = 'print_api_install';

/** What an install `state` carries, sealed (AES-GCM): which reseller, which platform, its input, until when. */
interface InstallState {
  k: 'install';
  r: string;
  m: Tenant['mode'];
  p: string;
  i: Record<string, unknown>;
  u: string | null;
  e: number;
}

type Installable = Connector<any> & { install: NonNullable<Connector['install']> };

const returnUrlSchema = z
  .url({ protocol: /^https?$/, message: 'must be an http(s) URL' })
  .max(2048)
  .optional();

export interface OAuthInstallsDeps extends Pick<StoresContext, 'connectors' | 'box' | 'context'> {
  connections: StoreConnections;
}

/**
 * OAuth installs, for every platform whose connector has `install` (Shopify, Etsy…):
 *
 * 1. `POST /stores/install-links {platform, returnUrl?, ...input}` (API key, scope
 *    `stores:write`): seals reseller, mode, input and a 30-minute expiry into `state` and
 *    answers `{data: {installUrl, expiresAt}}`. The reseller sends the merchant there. (No API
 *    key ever travels in a URL.)
 * 2. `GET /connectors/<platform>/install?state=…` (the merchant's browser): `state` is set as an
 *    HttpOnly SameSite=Lax cookie (path `/connectors/<platform>`) together with any cookie the
 *    connector needs, and the browser is redirected to the platform's consent screen.
 * 3. `GET /connectors/<platform>/callback?…` (the platform sends the merchant back): core reads
 *    its cookie (the same browser that started), the connector verifies what the platform sent
 *    and exchanges the code, and the store is saved exactly like `POST /stores`; the merchant
 *    goes on to `returnUrl` (`?store=<id>&platform=<platform>`) or sees a JSON confirmation.
 */
export class OAuthInstalls {
  readonly #deps: OAuthInstallsDeps;

  constructor(deps: OAuthInstallsDeps) {
    this.#deps = deps;
  }

  /** The install link of step 1; `platform` is the `source` value (SHOPIFY) or the URL slug (shopify). */
  async createLink(
    tenant: Tenant,
    platform: string,
    fields: Record<string, unknown>,
  ): Promise<{ installUrl: string; expiresAt: string }> {
    const connector = this.#installable(platform);
    const { returnUrl, ...rest } = fields;
    const back = returnUrlSchema.safeParse(returnUrl);
    if (!back.success)
      throw new Refusal('invalid_request', issueSentence('returnUrl', back.error.issues[0]!), [
        { field: 'returnUrl', code: 'invalid_url' },
      ]);
    const input = connector.install.inputSchema
      ? connector.install.inputSchema.safeParse(rest)
      : { success: true as const, data: rest };
    if (!input.success) {
      throw invalidRequest(
        input.error.issues,
        'body',
        `The ${connector.manifest.displayName} install fields are invalid`,
      );
    }
    const expiresAt = Date.now() + INSTALL_TTL_MS;
    const state = this.#deps.box.sealJson({
      k: 'install',
      r: tenant.resellerId,
      m: tenant.mode,
      p: connector.manifest.platform,
      i: input.data as Record<string, unknown>,
      u: back.data ?? null,
      e: expiresAt,
    } satisfies InstallState);
    return {
      installUrl: `${this.#urls(connector).base}/install?state=${state}`,
      expiresAt: new Date(expiresAt).toISOString(),
    };
  }

  /** Step 2: where to send the merchant's browser, and the cookies to set on the way. */
  async begin(
    slug: string,
    state: string | undefined,
    query: Record<string, string | undefined>,
  ): Promise<{ redirectUrl: string; cookies: string[] }> {
    const connector = this.#installable(slug);
    const install = this.#open(connector, state);
    if (!install || !state)
      throw new Refusal('unknown_install_link', 'This install link is unknown or has expired: ask for a new one.');
    const { ctx, callbackUrl, secure, cookiePath } = this.#urls(connector);
    const begun = await answeringFor(
      connector.manifest.displayName,
      'install',
      () => connector.install.begin(ctx, { query: { ...query, ...stringFields(install.i) }, state, callbackUrl }),
      ctx.logger,
    );
    const ours = cookie(COOKIE, state, {
      path: cookiePath,
      maxAgeSeconds: Math.ceil((install.e - Date.now()) / 1000),
      secure,
    });
    return { redirectUrl: begun.redirectUrl, cookies: [ours, ...(begun.cookies ?? [])] };
  }

  /** Step 3: the store saved, where the merchant goes next (null: nowhere), and the cookie that ends the install. */
  async complete(
    slug: string,
    req: { query: Record<string, string | undefined>; rawQuery: string; headers: Record<string, string | undefined> },
  ): Promise<{ store: StoreRow; returnUrl: string | null; cookies: string[] }> {
    const connector = this.#installable(slug);
    const state = readCookie(req.headers.cookie, COOKIE);
    const install = this.#open(connector, state);
    if (!install || !state)
      throw new Refusal(
        'install_not_started',
        'No install is in progress in this browser (or it expired): open your install link again.',
      );
    const { ctx, callbackUrl, secure, cookiePath } = this.#urls(connector);
    const connection = await answeringFor(
      connector.manifest.displayName,
      'install',
      () =>
        connector.install.callback(ctx, {
          query: req.query,
          rawQuery: req.rawQuery,
          state,
          headers: req.headers,
          callbackUrl,
        }),
      ctx.logger,
    );
    const store = await this.#deps.connections.saveConnection(
      { resellerId: install.r, mode: install.m },
      install.p,
      connection,
    );
    let returnUrl: string | null = null;
    if (install.u) {
      const back = new URL(install.u);
      back.searchParams.set('store', store.id);
      back.searchParams.set('platform', store.platform);
      returnUrl = back.toString();
    }
    return { store, returnUrl, cookies: [cookie(COOKIE, '', { path: cookiePath, maxAgeSeconds: 0, secure })] };
  }

  #installable(platform: string): Installable {
    const connector = this.#deps.connectors.get(platform) ?? this.#deps.connectors.bySlug(platform);
    if (!connector?.install)
      throw rejected('unsupported_platform', `No enabled connector installs through OAuth at '${platform}'.`, [
        { field: 'platform', code: 'unsupported_platform' },
      ]);
    if (!this.#deps.connectors.installable(connector.manifest.platform)) {
      // The operator has not set the app up (its settings are in the operator's log at start-up
      // and in the README); a merchant only needs to know what to do instead.
      const name = connector.manifest.displayName;
      throw rejected(
        'unsupported_platform',
        `${name} stores cannot be connected by installing our app here yet: connect with credentials made in your ${name} admin instead.`,
        [{ field: 'platform', code: 'unsupported_platform' }],
      );
    }
    return connector as Installable;
  }

  #urls(connector: Connector<any>) {
    const ctx = this.#deps.context(connector.manifest.platform);
    const cookiePath = `/connectors/${platformSlug(connector.manifest.platform)}`;
    const base = `${ctx.publicUrl}${cookiePath}`;
    return { ctx, base, cookiePath, callbackUrl: `${base}/callback`, secure: ctx.publicUrl.startsWith('https:') };
  }

  #open(connector: Connector<any>, state: string | undefined): InstallState | null {
    if (!state) return null;
    try {
      const s = this.#deps.box.openJson<InstallState>(state);
      return s.k === 'install' && s.p === connector.manifest.platform && s.e > Date.now() ? s : null;
    } catch {
      return null;
    }
  }
}

function stringFields(input: Record<string, unknown>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(input)
      .filter(([, v]) => typeof v === 'string' || typeof v === 'number')
      .map(([k, v]) => [k, String(v)]),
  );
}

function cookie(name: string, value: string, opts: { path: string; maxAgeSeconds: number; secure: boolean }): string {
  return `${name}=${value}; Path=${opts.path}; Max-Age=${Math.max(0, opts.maxAgeSeconds)}; HttpOnly; SameSite=Lax${opts.secure ? '; Secure' : ''}`;
}

function readCookie(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const [k, ...v] = part.trim().split('=');
    if (k === name) return v.join('=') || undefined;
  }
  return undefined;
}
