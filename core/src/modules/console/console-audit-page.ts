import { html, sendPage } from '../../web/html.ts';
import { ACTOR_TYPE_WORDS, inWords, TARGET_TYPE_WORDS } from '../code-words.ts';
import { definePage, type PageSpec } from '../../web/page.ts';
import type { CursorCodec } from '../../kernel/pagination.ts';
import type { AuditEvent, AuditLog } from '../audit/audit-log.ts';
import { Refusal } from '../../kernel/refusal.ts';
import type { ConsolePage } from './operator-console.ts';

const FILTERS = ['action', 'actorId', 'targetId', 'since', 'until'] as const;

/** The console's "Audit log" page: the trail with the API's filters (GET /admin/v1/audit-events), newest first. */
export function auditLogPage(deps: { audit: AuditLog; cursors: CursorCodec }, page: ConsolePage): PageSpec[] {
  return [
    definePage({
      method: 'get',
      path: '/audit',
      auth: 'operator',
      csrf: 'none',
      handle: async (req, res, next) => {
        try {
          if (!req.browserSession) return void res.redirect(303, `/admin?next=${encodeURIComponent(req.originalUrl)}`);
          const q = req.query as Record<string, string | undefined>;
          const values = Object.fromEntries(FILTERS.map((f) => [f, q[f]?.trim().slice(0, 200) || undefined]));
          const date = (s: string | undefined) => {
            if (!s) return undefined;
            const d = new Date(s);
            if (Number.isNaN(d.getTime())) throw new Refusal('invalid_request', `“${s}” is not a date and time.`);
            return d;
          };
          let list;
          try {
            list = await deps.audit.list(deps.cursors, {
              action: values.action,
              actorId: values.actorId,
              targetId: values.targetId,
              since: date(values.since),
              until: date(values.until),
              cursor: q.cursor || undefined,
              limit: 50,
            });
          } catch (err) {
            if (err instanceof Refusal && err.code === 'invalid_request')
              return sendPage(
                res,
                page(
                  req,
                  'Audit log',
                  html`<p class="error" role="alert">${err.message}</p><p><a href="/admin/audit">All records</a></p>`,
                ) as never,
                400,
              );
            throw err;
          }
          const params = Object.entries(values).filter((e): e is [string, string] => !!e[1]);
          const nextHref = list.nextCursor
            ? `/admin/audit?${new URLSearchParams([...params, ['cursor', list.nextCursor]])}`
            : null;
          sendPage(
            res,
            page(
              req,
              'Audit log',
              html`<form method="get" action="/admin/audit" aria-label="Filter the audit log" style="display:flex;flex-wrap:wrap;gap:0 1rem;align-items:flex-end">
                ${FILTERS.map((f) => html`<div><label for=${f}>${LABELS[f]}</label><input id=${f} name=${f} value=${values[f] ?? ''} /></div>`)}
                <div><button type="submit">Filter</button></div>
              </form>
              <p class="muted">Every record carries a hash chained to the one before: <a href="/admin/v1/audit-events/verify">verify the chain</a>.</p>
              <div class="table"><table>
                <thead><tr><th>When</th><th>Who</th><th>Action</th><th>Target</th><th>From</th><th>Changes</th></tr></thead>
                <tbody>${list.data.map(row)}</tbody>
              </table></div>
              ${list.data.length === 0 ? html`<p class="muted">No record matches.</p>` : null}
              ${nextHref ? html`<p><a href=${nextHref} rel="next">Older records</a></p>` : null}`,
            ) as never,
          );
        } catch (err) {
          next(err);
        }
      },
    }),
  ];
}

const LABELS: Record<(typeof FILTERS)[number], string> = {
  action: 'Action',
  actorId: 'Actor id',
  targetId: 'Target id',
  since: 'Since (ISO time)',
  until: 'Until (ISO time)',
};

function row(e: AuditEvent) {
  const who = [e.actor.name, e.actor.email].filter(Boolean).join(' · ');
  return html`<tr data-audit-event=${e.id} data-action=${e.action}>
    <td><time datetime=${e.at}>${e.at.replace('T', ' ').slice(0, 19)} UTC</time></td>
    <td>${inWords(ACTOR_TYPE_WORDS, e.actor.type)}: ${who || e.actor.id}<br /><span class="muted">${e.actor.id}</span></td>
    <td><code>${e.action}</code></td>
    <td>${inWords(TARGET_TYPE_WORDS, e.target.type)} <code>${e.target.id}</code></td>
    <td>${e.ip ?? '—'}<br /><span class="muted">${e.requestId ?? ''}</span></td>
    <td><code>${e.changes ? JSON.stringify(e.changes) : '—'}</code></td>
  </tr>`;
}
