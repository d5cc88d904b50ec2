import type { Request, Response } from 'express';
import * as oidc from 'openid-client';
import { html, Layout, sendPage } from '../../web/html.ts';
import { definePage, type PageSpec } from '../../web/page.ts';
import { auditContextOf, isOperatorRole, OPERATOR_ROLES, type OperatorRole } from '../operators/operator-roles.ts';
import { readCookie, setSessionCookie, type SessionCookieOptions } from '../sessions/session-cookies.ts';
import type { Logger } from '../../infra/logger.ts';
import { clientAddress } from '../../web/client-address.ts';
import type { SignInLimiter } from '../sessions/sign-in-limiter.ts';
import type { AuditLog } from '../audit/audit-log.ts';
import type { Actor } from '../audit/audit-tables.ts';
import type { SessionStore } from '../sessions/session-store.ts';

/** Single sign-on of operators (OpenID Connect), from OPERATOR_OIDC_*. */
export interface OperatorSsoSettings {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** The claim of the ID token (or userinfo) that holds the person's roles (default `roles`). */
  rolesClaim: string;
  /** Tests only: a provider on http://127.0.0.1 (openid-client refuses plain HTTP otherwise). */
  allowInsecureRequests?: boolean;
}

const TX_COOKIE = 'pa_oidc_tx';
const TX_PATH = '/admin/oidc';
const TX_TTL_S = 600;
/** Where to go after signing in: a console path, nothing else (no other site, no odd characters). */
const SAFE_NEXT = /^\/admin(\/[A-Za-z0-9_\-./%?=&]*)?$/;

/**
 * The sign-in through the operators' identity provider: authorization code flow with PKCE (S256), `state` and
 * `nonce`, by openid-client (a certified relying party). `/admin/oidc/start` keeps the flow's secrets in a
 * short-lived HttpOnly cookie and sends the browser to the provider; `/admin/oidc/callback` has the library check the
 * answer (state, code, nonce, ID token) and opens a console session for the person with the highest known role in
 * their roles claim. No known role, no flow of this browser's, or any failed check: no session, a page that says why,
 * and an `operator.sign_in_refused` record of which it was.
 */
export function operatorSsoPages(deps: {
  settings: OperatorSsoSettings;
  publicUrl: string;
  sessions: SessionStore;
  cookie: SessionCookieOptions;
  audit: AuditLog;
  /** Refused callbacks, counted per client address: past the limit, refused unheard and unrecorded. */
  limiter: SignInLimiter;
  logger: Logger;
  onSignedIn: (res: Response, csrfToken: string, expiresAt: Date) => void;
}): PageSpec[] {
  const { settings } = deps;
  const redirectUri = `${deps.publicUrl}/admin/oidc/callback`;
  let discovered: Promise<oidc.Configuration> | undefined;
  const configuration = () => {
    discovered ??= oidc
      .discovery(
        new URL(settings.issuer),
        settings.clientId,
        undefined,
        oidc.ClientSecretBasic(settings.clientSecret),
        settings.allowInsecureRequests ? { execute: [oidc.allowInsecureRequests] } : undefined,
      )
      .catch((err: unknown) => {
        discovered = undefined; // asked again on the next sign-in
        throw err;
      });
    return discovered;
  };
  const secure = deps.cookie.secure ? '; Secure' : '';
  /**
   * Every refused sign-in is on the trail, as the person when the provider named one, else as the sign-in itself
   * (a wrong state or a replayed code names no one we can trust).
   */
  const recordRefusal = async (req: Request, changes: Record<string, unknown>, actor?: Actor) => {
    await deps.audit.record(auditContextOf(req, actor ?? { type: 'system', id: 'operator-sso' }), {
      action: 'operator.sign_in_refused',
      target: { type: 'console', id: 'admin' },
      changes: { method: 'oidc', ...changes },
    });
    await deps.limiter.failed(limitKey(req));
  };

  return [
    definePage({
      method: 'get',
      path: '/oidc/start',
      auth: 'public',
      csrf: 'none',
      handle: async (req, res, next) => {
        try {
          const config = await configuration();
          const verifier = oidc.randomPKCECodeVerifier();
          const state = oidc.randomState();
          const nonce = oidc.randomNonce();
          const nextPath = typeof req.query.next === 'string' && SAFE_NEXT.test(req.query.next) ? req.query.next : '';
          const url = oidc.buildAuthorizationUrl(config, {
            redirect_uri: redirectUri,
            scope: 'openid profile email',
            code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
            code_challenge_method: 'S256',
            state,
            nonce,
          });
          const tx = Buffer.from(JSON.stringify({ verifier, state, nonce, next: nextPath })).toString('base64url');
          // Lax: the provider's redirect back is a cross-site navigation, which a Strict cookie would not follow.
          res.append(
            'Set-Cookie',
            `${TX_COOKIE}=${tx}; Path=${TX_PATH}; Max-Age=${TX_TTL_S}; HttpOnly; SameSite=Lax${secure}`,
          );
          res.set('Cache-Control', 'no-store');
          res.redirect(303, url.href);
        } catch (err) {
          deps.logger.warn('operator single sign-on: the provider could not be reached', { err });
          next(err);
        }
      },
    }),
    definePage({
      method: 'get',
      path: '/oidc/callback',
      auth: 'public',
      csrf: 'none',
      limit: 'sign-in',
      handle: async (req, res, next) => {
        res.append('Set-Cookie', `${TX_COOKIE}=; Path=${TX_PATH}; Max-Age=0; HttpOnly; SameSite=Lax${secure}`);
        res.set('Cache-Control', 'no-store');
        // The callback is public: whoever calls it with made-up answers again and again is stopped before
        // anything is checked or recorded (the audit trail is not theirs to fill).
        const blocked = await deps.limiter.blockedFor(limitKey(req));
        if (blocked > 0) {
          res.set('Retry-After', String(blocked));
          return refused(
            res,
            `Too many refused sign-ins from this address: try again in ${Math.ceil(blocked / 60)} minute(s).`,
            429,
          );
        }
        const tx = readTx(readCookie(req, TX_COOKIE));
        if (!tx) {
          await recordRefusal(req, { reason: 'no_flow' });
          return refused(res, 'This sign-in was not started here, or it took too long: start again.', 400);
        }
        let claims: Record<string, unknown>;
        try {
          const config = await configuration();
          const current = new URL(req.originalUrl, deps.publicUrl);
          const tokens = await oidc.authorizationCodeGrant(config, current, {
            pkceCodeVerifier: tx.verifier,
            expectedState: tx.state,
            expectedNonce: tx.nonce,
            idTokenExpected: true,
          });
          claims = { ...(tokens.claims() ?? {}) };
          if (!(settings.rolesClaim in claims) && config.serverMetadata().userinfo_endpoint) {
            const info = await oidc.fetchUserInfo(config, tokens.access_token, String(claims.sub));
            claims = { ...info, ...claims };
          }
        } catch (err) {
          deps.logger.warn('operator single sign-on refused', { err: (err as Error).message });
          await recordRefusal(req, { reason: 'failed_check', ...failedCheck(err) });
          return refused(
            res,
            'The identity provider’s answer did not check out: no session was opened. Start again.',
            400,
          );
        }
        try {
          const sub = String(claims.sub);
          const name = typeof claims.name === 'string' ? claims.name : undefined;
          const email = typeof claims.email === 'string' ? claims.email : undefined;
          const role = highestRole(claims[settings.rolesClaim]);
          const actor = { type: 'operator' as const, id: sub, ...(name ? { name } : {}), ...(email ? { email } : {}) };
          if (!role) {
            await recordRefusal(req, { reason: 'no_known_role', claim: settings.rolesClaim }, actor);
            return refused(
              res,
              `You signed in as ${email ?? name ?? sub}, but your account has no operator role (${OPERATOR_ROLES.join(', ')}) in its “${settings.rolesClaim}” claim. Ask whoever runs the identity provider to give you one.`,
              403,
            );
          }
          const { token, session } = await deps.sessions.create(
            'operator',
            `oidc:${sub}`,
            {
              ttlMs: deps.cookie.ttlMs,
              data: {
                via: 'oidc',
                issuer: settings.issuer,
                sub,
                role,
                ...(name ? { name } : {}),
                ...(email ? { email } : {}),
              },
              userAgent: req.get('user-agent'),
              ip: req.ip,
            },
            deps.audit.hook(auditContextOf(req, actor), (s) => ({
              action: 'operator.signed_in',
              target: { type: 'console', id: 'admin' },
              changes: { method: 'oidc', role, sessionId: s.id },
            })),
          );
          await deps.limiter.succeeded(limitKey(req));
          setSessionCookie(res, deps.cookie, token, session.expiresAt);
          deps.onSignedIn(res, session.csrfToken, session.expiresAt);
          // A page of ours moves on, not a redirect: the provider's redirect here is a cross-site navigation, and the
          // SameSite=Strict session cookie is sent only on a navigation this site starts.
          const to = tx.next || '/admin';
          sendPage(
            res,
            html`<${Layout} title="Signed in" product="Print API operations">
              <meta http-equiv="refresh" content=${`0;url=${to}`} />
              <p>Signed in. <a href=${to}>Continue to the console</a>.</p>
            <//>`,
          );
        } catch (err) {
          next(err);
        }
      },
    }),
  ];
}

/**
 * Which check failed, for the trail: openid-client's error code and message (a wrong `state`, a `nonce` that is not
 * ours) and the provider's OAuth error where it answered one (`invalid_grant`: a code used before). Its messages are
 * fixed sentences: no secret is in them.
 */
function failedCheck(err: unknown): { check: string; message: string; error?: string } {
  const e = (err ?? {}) as { code?: unknown; name?: unknown; message?: unknown; error?: unknown; cause?: unknown };
  const check = typeof e.code === 'string' ? e.code : typeof e.name === 'string' ? e.name : 'unknown';
  // openid-client says what kind of check failed; the oauth4webapi error it wraps says which value.
  const said = e.cause instanceof Error ? e.cause.message : e.message;
  const message = typeof said === 'string' ? said.slice(0, 200) : '';
  return typeof e.error === 'string' ? { check, message, error: e.error } : { check, message };
}

/** The highest of the known roles a claim holds (a list, or one string, or space-separated). */
export function highestRole(claim: unknown): OperatorRole | undefined {
  const values = Array.isArray(claim) ? claim : typeof claim === 'string' ? claim.split(/[\s,]+/) : [];
  let best: OperatorRole | undefined;
  for (const v of values) {
    if (isOperatorRole(v) && (!best || OPERATOR_ROLES.indexOf(v) > OPERATOR_ROLES.indexOf(best))) best = v;
  }
  return best;
}

function readTx(
  value: string | undefined,
): { verifier: string; state: string; nonce: string; next: string } | undefined {
  if (!value || value.length > 2000) return undefined;
  try {
    const tx = JSON.parse(Buffer.from(value, 'base64url').toString('utf8')) as Record<string, unknown>;
    if (typeof tx.verifier !== 'string' || typeof tx.state !== 'string' || typeof tx.nonce !== 'string')
      return undefined;
    return {
      verifier: tx.verifier,
      state: tx.state,
      nonce: tx.nonce,
      next: typeof tx.next === 'string' ? tx.next : '',
    };
  } catch {
    return undefined;
  }
}

/** The limiter's key of a callback: its client's address (kept apart from the admin token's sign-in). */
function limitKey(req: Request): string {
  return `sso:${clientAddress(req)}`;
}

function refused(res: Response, message: string, status: number): void {
  sendPage(
    res,
    html`<${Layout} title="Not signed in" product="Print API operations">
      <p class="error" role="alert" data-sso-refused>${message}</p>
      <p><a href="/admin">Back to the sign-in page</a></p>
    <//>`,
    status,
  );
}
