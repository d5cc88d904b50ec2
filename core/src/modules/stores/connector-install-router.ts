import type { Connector, ConnectorContext } from '@print-api/connector-kit';
import { ConnectorError } from '@print-api/connector-kit';
import express, { type Request } from 'express';
import { z } from 'zod';
import { ApiError, unprocessable } from '../../http/api-error.ts';
import { jsonBody } from '../../http/middleware/json-body.ts';
import type { SecretBox } from '../../infra/crypto.ts';
import type { AccountsService } from '../accounts/accounts-service.ts';
import type { Tenant } from '../orders/orders-service.ts';
import { refusedPrivateHost } from './connector-http.ts';
import { platformSlug, type ConnectorRegistry } from './connector-registry.ts';
import type { StoresService } from './stores-service.ts';

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

const returnUrlSchema = z.url({ protocol: /^https?$/, message: 'must be an http(s) URL' }).max(2048).optional();

/**
 * OAuth installs, for every platform whose connector has `install` (Shopify, Etsy…):
 *
 * 1. `POST /connectors/<platform>/install-links {returnUrl?, ...input}` — authenticated with the
 *    reseller's API key (`Authorization: Bearer`, scope `stores:write`): seals reseller, mode,
 *    input and a 30-minute expiry into `state` and answers `{data: {installUrl, expiresAt}}`.
 *    The reseller sends the merchant there. (No API key ever travels in a URL.)
 * 2. `GET /connectors/<platform>/install?state=…` — the merchant's browser: `state` is set as an
 *    HttpOnly SameSite=Lax cookie (path `/connectors/<platform>`) together with any cookie the
 *    connector needs, and the browser is redirected to the platform's consent screen.
 * 3. `GET /connectors/<platform>/callback?…` — the platform sends the merchant back: core reads
 *    its cookie (the same browser that started), the connector verifies what the platform sent
 *    and exchanges the code, and the store is saved exactly like `POST /stores`; the merchant
 *    goes on to `returnUrl` (`?store=<id>&platform=<platform>`) or sees a JSON confirmation.
 */
export function connectorInstallRouter(deps: {
  accounts: AccountsService;
  stores: StoresService;
  connectors: ConnectorRegistry;
  box: SecretBox;
  context: (platform: string) => ConnectorContext;
}): express.Router {
  const router = express.Router();
  const installable = (slug: string): Connector<any> & { install: NonNullable<Connector['install']> } => {
    const connector = deps.connectors.bySlug(slug);
    if (!connector?.install) throw unprocessable('unsupported_platform', `No enabled connector installs through OAuth at '${slug}'.`, [{ field: 'platform', code: 'unsupported_platform' }]);
    return connector as Connector<any> & { install: NonNullable<Connector['install']> };
  };
  const urls = (connector: Connector<any>) => {
    const ctx = deps.context(connector.manifest.platform);
    const base = `${ctx.publicUrl}/connectors/${platformSlug(connector.manifest.platform)}`;
    return { ctx, base, callbackUrl: `${base}/callback`, secure: ctx.publicUrl.startsWith('https:') };
  };
  const open = (connector: Connector<any>, state: string | undefined): InstallState | null => {
    if (!state) return null;
    try {
      const s = deps.box.openJson<InstallState>(state);
      return s.k === 'install' && s.p === connector.manifest.platform && s.e > Date.now() ? s : null;
    } catch {
      return null;
    }
  };

  router.post('/:platform/install-links', jsonBody({ limit: '16kb' }), async (req, res, next) => {
    try {
      const header = req.headers.authorization;
      const auth = await deps.accounts.authenticate(header?.startsWith('Bearer ') ? header.slice(7).trim() : undefined);
      if (auth.scopes && !auth.scopes.has('stores:write')) throw new ApiError(403, 'insufficient_scope', "This API key lacks the scope 'stores:write' required to install a store.");
      const connector = installable(String(req.params.platform));
      const { returnUrl, ...fields } = (req.body ?? {}) as Record<string, unknown>;
      const back = returnUrlSchema.safeParse(returnUrl);
      if (!back.success) throw new ApiError(400, 'invalid_request', `returnUrl ${back.error.issues[0]?.message}`, [{ field: 'returnUrl', code: 'invalid_url' }]);
      const input = connector.install.inputSchema ? connector.install.inputSchema.safeParse(fields) : { success: true as const, data: fields };
      if (!input.success) {
        throw new ApiError(400, 'invalid_request', `The ${connector.manifest.displayName} install fields are invalid: ${input.error.issues[0]?.message}`, input.error.issues.map((i) => ({ field: i.path.join('.'), code: i.code, message: i.message })));
      }
      const expiresAt = Date.now() + INSTALL_TTL_MS;
      const state = deps.box.sealJson({ k: 'install', r: auth.resellerId, m: auth.mode, p: connector.manifest.platform, i: input.data as Record<string, unknown>, u: back.data ?? null, e: expiresAt } satisfies InstallState);
      res.status(201).json({ data: { installUrl: `${urls(connector).base}/install?state=${state}`, expiresAt: new Date(expiresAt).toISOString() } });
    } catch (err) {
      next(err);
    }
  });

  router.get('/:platform/install', async (req, res, next) => {
    try {
      const connector = installable(String(req.params.platform));
      const state = typeof req.query.state === 'string' ? req.query.state : undefined;
      const install = open(connector, state);
      if (!install || !state) throw new ApiError(404, 'unknown_install_link', 'This install link is unknown or has expired: ask for a new one.');
      const { ctx, callbackUrl, secure } = urls(connector);
      const query = { ...stringQuery(req), ...stringFields(install.i) };
      const begun = await platformCall(connector, () => connector.install.begin(ctx, { query, state, callbackUrl }));
      const ours = cookie(COOKIE, state, { path: `/connectors/${platformSlug(connector.manifest.platform)}`, maxAgeSeconds: Math.ceil((install.e - Date.now()) / 1000), secure });
      res.setHeader('Set-Cookie', [ours, ...(begun.cookies ?? [])]);
      res.redirect(302, begun.redirectUrl);
    } catch (err) {
      next(err);
    }
  });

  router.get('/:platform/callback', async (req, res, next) => {
    try {
      const connector = installable(String(req.params.platform));
      const state = readCookie(req.headers.cookie, COOKIE);
      const install = open(connector, state);
      if (!install || !state) throw new ApiError(400, 'install_not_started', 'No install is in progress in this browser (or it expired): open your install link again.');
      const { ctx, callbackUrl, secure } = urls(connector);
      const rawQuery = req.originalUrl.includes('?') ? req.originalUrl.slice(req.originalUrl.indexOf('?') + 1) : '';
      const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(', ') : v]));
      const connection = await platformCall(connector, () => connector.install.callback(ctx, { query: stringQuery(req), rawQuery, state, headers, callbackUrl }));
      const row = await deps.stores.saveConnection({ resellerId: install.r, mode: install.m }, install.p, connection);
      res.setHeader('Set-Cookie', cookie(COOKIE, '', { path: `/connectors/${platformSlug(connector.manifest.platform)}`, maxAgeSeconds: 0, secure }));
      if (install.u) {
        const back = new URL(install.u);
        back.searchParams.set('store', row.id);
        back.searchParams.set('platform', row.platform);
        return void res.redirect(303, back.toString());
      }
      res.status(200).json({ connected: true, storeId: row.id, platform: row.platform, externalId: row.external_id });
    } catch (err) {
      next(err);
    }
  });
  return router;
}

/** A connector's typed failures as API errors: refused by the platform 422, unreachable 502. */
async function platformCall<T>(connector: Connector<any>, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (!(err instanceof ConnectorError)) throw err;
    const privateHost = refusedPrivateHost(err);
    if (privateHost !== undefined) throw new ApiError(422, 'invalid_install', `${privateHost} is a local, private or reserved address, which Print API does not connect to.`);
    const status = err.kind === 'auth' || err.kind === 'invalid_payload' ? 422 : 502;
    throw new ApiError(status, err.kind === 'auth' ? 'store_install_rejected' : status === 422 ? 'invalid_install' : 'store_unreachable', `${connector.manifest.displayName} said: ${err.message}`);
  }
}

function stringQuery(req: Request): Record<string, string | undefined> {
  return Object.fromEntries(Object.entries(req.query).map(([k, v]) => [k, typeof v === 'string' ? v : undefined]));
}

function stringFields(input: Record<string, unknown>): Record<string, string> {
  return Object.fromEntries(Object.entries(input).filter(([, v]) => typeof v === 'string' || typeof v === 'number').map(([k, v]) => [k, String(v)]));
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
