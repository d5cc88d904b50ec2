import { expect } from 'chai';
import express from 'express';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { Redis } from 'ioredis';
import { randomBytes } from 'node:crypto';
import { errorHandler } from '../../src/http/middleware/error-handler.ts';
import { html, Layout, renderPage, CsrfField } from '../../src/web/html.ts';
import {
  readCookie,
  sessionCookieHeader,
  sessionCookieOptions,
  setSessionCookie,
  clearSessionCookie,
} from '../../src/modules/sessions/session-cookies.ts';
import { csrfCheck, formBody, loadSession, requireSession } from '../../src/modules/sessions/session-middleware.ts';
import { SignInLimiter } from '../../src/modules/sessions/sign-in-limiter.ts';
import { silentLogger } from '../../src/infra/logger.ts';
import { SessionStore } from '../../src/modules/sessions/session-store.ts';
import { describeEachDatabase, needService, TEST_REDIS_URL } from '../helpers/services.ts';

describeEachDatabase('browser sessions: the store', (t) => {
  it('keeps only a hash of the token, finds a session only by its own kind, and forgets it once revoked or expired', async () => {
    const store = new SessionStore({ db: t.db });
    const { token, session } = await store.create('operator', 'admin', {
      ttlMs: 60_000,
      userAgent: 'ua',
      ip: '127.0.0.1',
    });
    const row = await t.db
      .selectFrom('browser_sessions')
      .selectAll()
      .where('id', '=', session.id)
      .executeTakeFirstOrThrow();
    expect(row.token_hash).to.not.include(token);
    expect(JSON.stringify(row)).to.not.include(token);
    expect((await store.find('operator', token))?.id).to.equal(session.id);
    expect((await store.find('operator', token))?.csrfToken).to.equal(session.csrfToken);
    expect(await store.find('reseller', token)).to.equal(undefined);
    expect(await store.find('operator', `${token}x`)).to.equal(undefined);
    await store.revoke(session.id);
    expect(await store.find('operator', token)).to.equal(undefined);

    const short = await store.create('reseller', 'res_1', { ttlMs: 60_000, data: { mode: 'test' } });
    expect((await store.find('reseller', short.token))?.data).to.deep.equal({ mode: 'test' });
    const later = new SessionStore({ db: t.db, clock: () => new Date(Date.now() + 61_000) });
    expect(await later.find('reseller', short.token)).to.equal(undefined);
    const other = await store.create('reseller', 'res_1', { ttlMs: 60_000 });
    expect(await store.revokeAll('reseller', 'res_1')).to.equal(2);
    expect(await store.find('reseller', other.token)).to.equal(undefined);
  });
});

describe('browser sessions: cookies', () => {
  it('are HttpOnly and SameSite per kind, Secure (with the __Host- prefix) when PUBLIC_URL is https', () => {
    const ops = sessionCookieOptions('operator', 'https://print.example');
    expect(ops).to.include({ name: '__Host-pa_ops', sameSite: 'Strict', secure: true, path: '/' });
    const header = sessionCookieHeader(ops, 'tok', new Date(Date.now() + 3600_000));
    expect(header).to.match(/^__Host-pa_ops=tok; Path=\/; Expires=.*; Max-Age=\d+; HttpOnly; SameSite=Strict; Secure$/);
    const dash = sessionCookieOptions('reseller', 'http://127.0.0.1:3000');
    expect(dash).to.include({ name: 'pa_dash', sameSite: 'Lax', secure: false, ttlMs: 12 * 3600 * 1000 });
    expect(sessionCookieHeader(dash, 'x', new Date(Date.now() + 1000))).to.not.include('Secure');
    expect(sessionCookieOptions('reseller', 'http://x', { ttlMs: 5, name: 'custom' })).to.include({
      ttlMs: 5,
      name: 'custom',
    });
  });

  it('are read from the Cookie header by name', () => {
    const req = { headers: { cookie: 'a=1; pa_ops=abc%3D; b="q"' } } as unknown as express.Request;
    expect(readCookie(req, 'pa_ops')).to.equal('abc=');
    expect(readCookie(req, 'b')).to.equal('q');
    expect(readCookie(req, 'c')).to.equal(undefined);
  });
});

describeEachDatabase('browser sessions: middleware and CSRF', (t) => {
  let server: Server;
  let base: string;
  let store: SessionStore;
  const ops = sessionCookieOptions('operator', 'http://127.0.0.1');
  const dash = sessionCookieOptions('reseller', 'http://127.0.0.1');

  before(async () => {
    store = new SessionStore({ db: t.db });
    const app = express();
    app.post('/sign-in/:kind', async (req, res) => {
      const kind = req.params.kind === 'reseller' ? 'reseller' : 'operator';
      const { token, session } = await store.create(kind, 'someone', { ttlMs: 60_000 });
      setSessionCookie(res, kind === 'operator' ? ops : dash, token, session.expiresAt);
      res.json({ csrf: session.csrfToken });
    });
    const ops_ = express.Router();
    ops_.use(
      formBody(),
      loadSession(store, ops),
      requireSession('operator', (_req, res) => res.redirect(303, '/sign-in')),
      csrfCheck('http://127.0.0.1'),
    );
    ops_.get(
      '/page',
      (req, res) =>
        void res
          .type('html')
          .send(
            renderPage(
              html`<${Layout} title="Ops"><form method="post"><${CsrfField} token=${req.browserSession!.csrfToken} /></form><//>`,
            ),
          ),
    );
    ops_.post('/act', (_req, res) => void res.json({ done: true }));
    ops_.post('/sign-out', async (req, res) => {
      await store.revoke(req.browserSession!.id);
      clearSessionCookie(res, ops);
      res.json({ out: true });
    });
    app.use('/ops', ops_);
    app.use(errorHandler(silentLogger()));
    server = app.listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => new Promise<void>((r) => server.close(() => r())));

  async function signIn(kind: 'operator' | 'reseller') {
    const res = await fetch(`${base}/sign-in/${kind}`, { method: 'POST' });
    const cookie = res.headers.get('set-cookie')!.split(';')[0]!;
    return { cookie, csrf: ((await res.json()) as { csrf: string }).csrf };
  }

  it('lets a session of its kind in, sends others to sign in', async () => {
    const op = await signIn('operator');
    expect((await fetch(`${base}/ops/page`, { headers: { cookie: op.cookie } })).status).to.equal(200);
    const none = await fetch(`${base}/ops/page`, { redirect: 'manual' });
    expect(none.status).to.equal(303);
    const reseller = await signIn('reseller');
    // A reseller's session under the operator's cookie name opens nothing.
    const forged = `${ops.name}=${reseller.cookie.split('=').slice(1).join('=')}`;
    expect((await fetch(`${base}/ops/page`, { headers: { cookie: forged }, redirect: 'manual' })).status).to.equal(303);
  });

  it('refuses a state-changing request without the CSRF token, or from another site', async () => {
    const op = await signIn('operator');
    const post = (body: string, headers: Record<string, string> = {}) =>
      fetch(`${base}/ops/act`, {
        method: 'POST',
        headers: { cookie: op.cookie, 'content-type': 'application/x-www-form-urlencoded', ...headers },
        body,
      });
    const missing = await post('');
    expect(missing.status).to.equal(403);
    expect(((await missing.json()) as any).error.code).to.equal('csrf_failed');
    expect((await post('_csrf=wrong')).status).to.equal(403);
    expect((await post(`_csrf=${encodeURIComponent(op.csrf)}`)).status).to.equal(200);
    expect((await post('', { 'x-csrf-token': op.csrf })).status).to.equal(200);
    expect((await post(`_csrf=${encodeURIComponent(op.csrf)}`, { origin: 'https://evil.example' })).status).to.equal(
      403,
    );
    expect((await post(`_csrf=${encodeURIComponent(op.csrf)}`, { 'sec-fetch-site': 'cross-site' })).status).to.equal(
      403,
    );
    expect(
      (await post(`_csrf=${encodeURIComponent(op.csrf)}`, { origin: base, 'sec-fetch-site': 'same-origin' })).status,
    ).to.equal(200);
  });

  it('signs out: the revoked session opens nothing, the cookie is cleared', async () => {
    const op = await signIn('operator');
    const out = await fetch(`${base}/ops/sign-out`, {
      method: 'POST',
      headers: { cookie: op.cookie, 'x-csrf-token': op.csrf },
    });
    expect(out.headers.get('set-cookie')).to.match(/^pa_ops=; .*Max-Age=0/);
    expect((await fetch(`${base}/ops/page`, { headers: { cookie: op.cookie }, redirect: 'manual' })).status).to.equal(
      303,
    );
  });
});

describe('browser sessions: failed sign-ins are limited', () => {
  it('in memory: after the allowed failures, the key waits; a success forgets them', async () => {
    const limiter = new SignInLimiter({ keyPrefix: 'test', points: 3, durationMs: 60_000 });
    expect(await limiter.blockedFor('ip1')).to.equal(0);
    expect(await limiter.failed('ip1')).to.equal(0);
    expect(await limiter.failed('ip1')).to.equal(0);
    expect(await limiter.failed('ip1')).to.be.greaterThan(0);
    expect(await limiter.blockedFor('ip1')).to.be.greaterThan(0);
    expect(await limiter.blockedFor('ip2')).to.equal(0);
    await limiter.succeeded('ip1');
    expect(await limiter.blockedFor('ip1')).to.equal(0);
  });

  it('in Redis: shared by every limiter on the same prefix', async function () {
    await needService(this, 'redis');
    const redis = new Redis(TEST_REDIS_URL);
    try {
      // Until the client is ready the limiter counts in memory (its insurance), as the API's limits do.
      if (redis.status !== 'ready') await new Promise((resolve) => redis.once('ready', resolve));
      const prefix = `pa-test-${randomBytes(4).toString('hex')}:signin`;
      const a = new SignInLimiter({ redis, keyPrefix: prefix, points: 2, durationMs: 60_000 });
      const b = new SignInLimiter({ redis, keyPrefix: prefix, points: 2, durationMs: 60_000 });
      await a.failed('ip');
      await b.failed('ip');
      expect(await a.blockedFor('ip')).to.be.greaterThan(0);
      await b.succeeded('ip');
      expect(await a.blockedFor('ip')).to.equal(0);
    } finally {
      redis.disconnect();
    }
  });
});
