import { ConnectorError, type ConnectorContext, type StoreConnection } from '@print-api/connector-kit';
import { instanceIdSchema, type WixCredentials, type WixSettings } from './config.ts';
import { mintToken, WixClient } from './wix-client.ts';

type Context = ConnectorContext<WixSettings>;

/**
 * Sends the merchant to Wix's installer (the external install flow):
 * `…/installer/install?appId=<app id>&postInstallationUrl=<our callback?state=…>`. The
 * merchant picks a site and grants our permissions; Wix then redirects to our callback,
 * keeping the query we gave (the install's `state`) and adding the site's `instanceId`.
 */
export function installRedirect(settings: WixSettings, params: { state: string; callbackUrl: string }): string {
  const back = new URL(params.callbackUrl);
  back.searchParams.set('state', params.state);
  const url = new URL(settings.installerUrl);
  url.searchParams.set('appId', settings.appId);
  url.searchParams.set('postInstallationUrl', back.toString());
  return url.toString();
}

interface AppInstance {
  instance?: { instanceId?: string; appName?: string };
  site?: { siteDisplayName?: string; url?: string; siteId?: string };
}

/**
 * Wix's redirect back, after the install: the `state` it kept must be the one this browser
 * started with (core's cookie: the reseller who asked), the app ours, and the `instanceId` one
 * our app is really installed on, which Wix confirms by minting a token for it
 * (client credentials) and answering that instance's `GET /apps/v1/instance` (the site's name).
 * A forged, stale or foreign redirect connects nothing and says why (`auth`).
 */
export async function completeInstall(
  ctx: Context,
  params: { query: Record<string, string | undefined>; state: string },
): Promise<StoreConnection<WixCredentials>> {
  const { query, state } = params;
  if (query.error)
    throw new ConnectorError(
      'auth',
      `Wix did not install the app: ${query.error}${query.errorDescription ? ` (${query.errorDescription})` : ''}`,
    );
  if (!query.state)
    throw new ConnectorError('auth', "Wix's redirect carries no install state: open your install link again.");
  if (query.state !== state)
    throw new ConnectorError(
      'auth',
      'The install state in the redirect is not the one this browser started: the link was altered or belongs to another install. Open your install link again.',
    );
  if (query.appId && query.appId !== ctx.settings.appId)
    throw new ConnectorError('auth', `The redirect is for the Wix app ${query.appId}, not ours.`);
  const instanceId = instanceIdSchema.safeParse(query.instanceId);
  if (!instanceId.success)
    throw new ConnectorError(
      'auth',
      `Wix's redirect carries no usable instanceId (${query.instanceId ? 'not a GUID' : 'missing'}): the app may not have been installed.`,
    );

  const now = ctx.clock();
  const token = await mintToken(ctx.http, ctx.settings, instanceId.data, now);
  const credentials: WixCredentials = {
    instanceId: instanceId.data,
    accessToken: token.accessToken,
    expiresAt: new Date(token.expiresAtMs).toISOString(),
  };
  const client = new WixClient({
    http: ctx.http,
    settings: ctx.settings,
    credentials,
    clock: ctx.clock,
    logger: ctx.logger,
  });
  const app = await client.call<AppInstance>('getAppInstance', 'GET', '/apps/v1/instance');
  const confirmed = app.instance?.instanceId?.toLowerCase();
  if (confirmed !== instanceId.data)
    throw new ConnectorError(
      'auth',
      `Wix answered for the instance ${confirmed ?? '(none)'}, not ${instanceId.data}: nothing connected.`,
    );
  const name = app.site?.siteDisplayName?.trim() || app.site?.url?.trim() || `Wix site ${instanceId.data}`;
  return { externalId: instanceId.data, name, credentials };
}
