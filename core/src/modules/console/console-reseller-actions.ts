import type { Request, Response } from 'express';
import { html, CsrfField, sendPage, type Children, type VNode } from '../../web/html.ts';
import { definePage, type PageSpec } from '../../web/page.ts';
import { auditContextOf, hasRole, requireRole, roleFor } from '../operators/operator-roles.ts';
import { csrfCheck } from '../sessions/session-middleware.ts';
import type { AccountsService, Reseller } from '../accounts/accounts-service.ts';
import type { AuditLog } from '../audit/audit-log.ts';
import { dashboardLinkAudit } from '../dashboard/dashboard-links-routes.ts';
import type { DashboardLinks } from '../dashboard/dashboard-links-service.ts';
import { Refusal } from '../../kernel/refusal.ts';
import type { WalletService } from '../wallet/wallet-service.ts';
import type { ConsolePage } from './operator-console.ts';
import type { ResellerSection } from './console-pages.ts';

export interface ResellerActionsDeps {
  publicUrl: string;
  accounts: AccountsService;
  wallet: WalletService;
  links: DashboardLinks;
  audit: AuditLog;
}

const ACTIONS = [
  { path: 'approve', label: 'Approve' },
  { path: 'suspend', label: 'Suspend' },
] as const;

/**
 * What an operator does to a reseller from the console's reseller page (`/admin/resellers/{id}`): approve, suspend,
 * top up the wallet, make an API key or a dashboard link. Each form needs the role the role table gives it (the same
 * as the back-office route that does the same), acts through the same services and is recorded in the audit trail.
 * `resellerActions` renders the section; the pages are its POST handlers (and a minimal reseller page to hold it).
 */
export function resellerActionPages(deps: ResellerActionsDeps, page: ConsolePage): PageSpec[] {
  const guard = csrfCheck(deps.publicUrl);
  const post = (action: string, run: (req: Request, res: Response, id: string) => Promise<void>) =>
    definePage({
      method: 'post',
      path: `/resellers/{id}/${action}`,
      auth: 'operator',
      csrf: 'token',
      guard,
      handle: async (req, res, next) => {
        try {
          if (!req.browserSession) return void res.redirect(303, '/admin');
          requireRole(req, 'post', `/admin/resellers/{id}/${action}`);
          await run(req, res, String(req.params.id));
        } catch (err) {
          if (err instanceof Refusal && err.code !== 'unauthorized') {
            const status = err.code === 'not_found' ? 404 : err.code === 'insufficient_role' ? 403 : 400;
            return sendPage(
              res,
              page(
                req,
                'Not done',
                html`<p class="error" role="alert">${err.message}</p><p><a href=${`/admin/resellers/${encodeURIComponent(String(req.params.id))}`}>Back to the reseller</a></p>`,
              ) as never,
              status,
            );
          }
          next(err);
        }
      },
    });
  const back = (res: Response, id: string) => res.redirect(303, `/admin/resellers/${encodeURIComponent(id)}`);
  const done = (req: Request, res: Response, id: string, title: string, body: Children) =>
    sendPage(
      res,
      page(
        req,
        title,
        html`${body}<p><a href=${`/admin/resellers/${encodeURIComponent(id)}`}>Back to the reseller</a></p>`,
      ) as never,
      201,
    );
  const form = (req: Request) => (req.body ?? {}) as Record<string, unknown>;

  return [
    ...ACTIONS.map(({ path }) =>
      post(path, async (req, res, id) => {
        const status = path === 'approve' ? 'approved' : 'suspended';
        await deps.accounts.setStatus(
          id,
          status,
          deps.audit.hook(auditContextOf(req), (r: Reseller) => ({
            action: `reseller.${status}`,
            target: { type: 'reseller', id: r.id },
            changes: { status },
          })),
        );
        back(res, id);
      }),
    ),
    post('top-up', async (req, res, id) => {
      const body = form(req);
      const euros = Number(String(body.amount ?? '').replace(',', '.'));
      const amountCents = Math.round(euros * 100);
      if (!Number.isFinite(euros) || amountCents < 1 || amountCents > 100_000_000)
        throw new Refusal('invalid_request', 'The amount must be between 0.01 and 1,000,000 euros.');
      const mode = body.mode === 'test' ? 'test' : 'live';
      const reference =
        typeof body.reference === 'string' && body.reference.trim() ? body.reference.trim().slice(0, 200) : undefined;
      await deps.accounts.getReseller(id);
      await deps.wallet.topUp(
        { resellerId: id, mode, amountCents, reference },
        deps.audit.hook(auditContextOf(req), (e) => ({
          action: 'wallet.topped_up',
          target: { type: 'reseller', id },
          changes: {
            mode,
            amountCents,
            reference: reference ?? null,
            ledgerEntryId: e.id,
            balanceAfterCents: e.balanceAfterCents,
          },
        })),
      );
      back(res, id);
    }),
    post('api-keys', async (req, res, id) => {
      const mode = form(req).mode === 'test' ? 'test' : 'live';
      const key = await deps.accounts.createApiKey(
        id,
        { mode },
        deps.audit.hook(auditContextOf(req), (k) => ({
          action: 'api_key.created',
          target: { type: 'api_key', id: k.id },
          changes: { resellerId: k.resellerId, mode: k.mode, prefix: k.prefix, scopes: k.scopes },
        })),
      );
      done(
        req,
        res,
        id,
        'API key made',
        html`<p>The key, shown only now: copy it to the reseller.</p><p><code data-new-key>${key.key}</code></p>`,
      );
    }),
    post('dashboard-link', async (req, res, id) => {
      const mode = form(req).mode === 'test' ? 'test' : 'live';
      const link = await deps.links.create({ resellerId: id, mode }, dashboardLinkAudit(deps.audit, req));
      done(
        req,
        res,
        id,
        'Dashboard link made',
        html`<p>Valid until ${link.expiresAt}, once:</p><p><code data-new-link>${link.url}</code></p>`,
      );
    }),
  ];
}

/** The actions section of the reseller page: each form shown only to a role that may use it. */
export function resellerActions(req: Request, reseller: { id: string }): Children {
  const role = req.operator?.role ?? 'viewer';
  const csrf = req.browserSession?.csrfToken ?? '';
  const base = `/admin/resellers/${encodeURIComponent(reseller.id)}`;
  const may = (action: string) => hasRole(role, roleFor('post', `/admin/resellers/{id}/${action}`));
  const forms = [
    ...ACTIONS.filter((a) => may(a.path)).map(
      (a) =>
        html`<form method="post" action=${`${base}/${a.path}`} class="inline"><${CsrfField} token=${csrf} /><button type="submit" data-action=${a.path}>${a.label}</button></form> `,
    ),
    may('top-up')
      ? html`<form method="post" action=${`${base}/top-up`} aria-label="Top up the wallet"><${CsrfField} token=${csrf} />
          <label for="amount">Top up (EUR)</label><input id="amount" name="amount" inputmode="decimal" required />
          <select name="mode" aria-label="Wallet"><option value="live">live</option><option value="test">test</option></select>
          <input name="reference" placeholder="Reference" aria-label="Reference" />
          <button type="submit" data-action="top-up">Top up</button></form>`
      : null,
    may('api-keys')
      ? html`<form method="post" action=${`${base}/api-keys`} class="inline"><${CsrfField} token=${csrf} /><select name="mode" aria-label="Key mode"><option value="live">live</option><option value="test">test</option></select> <button type="submit" data-action="api-keys">Make an API key</button></form> `
      : null,
    may('dashboard-link')
      ? html`<form method="post" action=${`${base}/dashboard-link`} class="inline"><${CsrfField} token=${csrf} /><select name="mode" aria-label="Dashboard mode"><option value="live">live</option><option value="test">test</option></select> <button type="submit" data-action="dashboard-link">Make a dashboard link</button></form>`
      : null,
  ].filter(Boolean);
  return html`<section aria-label="Operator actions" data-reseller-actions>
    <h2>Actions</h2>
    ${forms.length ? forms : html`<p class="muted">Your role (${role}) only reads.</p>`}
  </section>`;
}

/** The reseller page's section of operator actions (console-pages.ts' reseller page lists it after the account). */
export const actionsSection: ResellerSection = ({ req, data }) => resellerActions(req, data.reseller) as VNode;
