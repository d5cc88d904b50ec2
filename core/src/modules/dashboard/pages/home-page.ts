import { html, sendPage } from '../../../web/html.ts';
import type { Register } from '../dashboard-router.ts';
import { noticeOf } from '../dashboard-context.ts';
import { DashLayout, money, when } from './parts.ts';
import { skippedLine } from './store-words.ts';
import type { Api, Data, ListPage } from '../dashboard-data.ts';
import { inWords, LEDGER_KIND_WORDS, ORDER_STATE_WORDS } from '../../code-words.ts';

const ATTENTION = [
  { state: 'AWAITING_FILE', why: 'A line has no print file: supply one.' },
  { state: 'AWAITING_FUNDS', why: 'The wallet does not cover it: top up and it goes on by itself.' },
  { state: 'PAYMENT_FAILED', why: 'The card payment failed.' },
] as const;

/** Home: the wallet, what needs attention (orders and skipped store orders). */
export function homePage(register: Register): void {
  register('get', '/', async (d) => {
    // Home shows what the session's scopes let it read, and leaves out the rest.
    const wallet = d.page.can('wallet:read')
      ? (await d.api<Data<Api['Wallet']>>('GET', '/wallet', { query: { limit: '10' } })).data
      : { balanceCents: null, entries: { data: [] as Api['Wallet']['entries']['data'] } };
    const attention = d.page.can('orders:read')
      ? await Promise.all(
          ATTENTION.map(async (a) => ({
            ...a,
            orders: (await d.api<ListPage<Api['Order']>>('GET', '/orders', { query: { state: a.state, limit: '20' } }))
              .data,
          })),
        )
      : [];
    const stores = d.page.can('stores:read')
      ? (await d.api<ListPage<Api['Store']>>('GET', '/stores', { query: { limit: '100' } })).data.filter(
          (s) => s.status === 'connected',
        )
      : [];
    const skipped = (
      await Promise.all(
        stores.map(async (s) =>
          (
            await d.api<ListPage<Api['StoreIngest']>>('GET', `/stores/${s.id}/ingests`, {
              query: { status: 'skipped', limit: '20' },
            })
          ).data.map((i) => ({ ...i, store: s })),
        ),
      )
    ).flat();
    const needing = attention.flatMap((a) => a.orders.map((o) => ({ ...o, why: a.why })));
    sendPage(
      d.res,
      html`<${DashLayout} title="Home" session=${d.page} notice=${noticeOf(d.req)}>
        <div class="grid">
          <section class="card" aria-labelledby="wallet-h">
            <h2 id="wallet-h">Wallet</h2>
            <p><span class="muted">Balance</span> <strong data-testid="balance">${money(wallet.balanceCents)}</strong></p>
          </section>
          <section class="card" aria-labelledby="att-h">
            <h2 id="att-h">Needs attention</h2>
            <p><strong>${needing.length}</strong> orders, <strong>${skipped.length}</strong> skipped store orders.</p>
          </section>
        </div>
        <section aria-labelledby="orders-h">
          <h2 id="orders-h">Orders needing attention</h2>
          ${
            needing.length === 0
              ? html`<p class="muted">Nothing waits for you.</p>`
              : html`<div class="table"><table>
                <thead><tr><th scope="col">Order</th><th scope="col">State</th><th scope="col">Why</th><th scope="col">Created</th></tr></thead>
                <tbody>${needing.map((o) => html`<tr><td><a href=${`/dashboard/orders/${o.id}`}>${o.externalOrderId ?? o.id}</a></td><td data-code=${o.state}>${inWords(ORDER_STATE_WORDS, o.state)}</td><td>${o.why}</td><td>${when(o.createdAt)}</td></tr>`)}</tbody>
              </table></div>`
          }
        </section>
        <section aria-labelledby="skipped-h">
          <h2 id="skipped-h">Skipped store orders</h2>
          ${
            skipped.length === 0
              ? html`<p class="muted">No store order was skipped.</p>`
              : html`<div class="table"><table>
                <thead><tr><th scope="col">Store</th><th scope="col">Store order</th><th scope="col">Skipped lines</th><th scope="col">Seen</th></tr></thead>
                <tbody>${skipped.map(
                  (i) => html`<tr>
                    <td><a href=${`/dashboard/stores/${i.store.id}`}>${i.store.name}</a></td>
                    <td>${i.externalName ?? i.externalOrderId}</td>
                    <td>${i.skippedLines.map((l) => html`<div>${skippedLine(l)}</div>`)}</td>
                    <td>${when(i.createdAt)}</td>
                  </tr>`,
                )}</tbody>
              </table></div>`
          }
        </section>
        <section aria-labelledby="ledger-h">
          <h2 id="ledger-h">Recent ledger entries</h2>
          ${
            wallet.entries.data.length === 0
              ? html`<p class="muted">No entries yet.</p>`
              : html`<div class="table"><table>
                <thead><tr><th scope="col">When</th><th scope="col">Kind</th><th scope="col">Amount</th><th scope="col">Balance after</th><th scope="col">Order / reference</th></tr></thead>
                <tbody>${wallet.entries.data.map(
                  (e) =>
                    html`<tr><td>${when(e.createdAt)}</td><td data-code=${e.kind}>${inWords(LEDGER_KIND_WORDS, e.kind)}</td><td>${money(e.amountCents)}</td><td>${money(e.balanceAfterCents)}</td><td>${e.orderId ? html`<a href=${`/dashboard/orders/${e.orderId}`}>${e.orderId}</a>` : (e.reference ?? '')}</td></tr>`,
                )}</tbody>
              </table></div>`
          }
        </section>
      <//>`,
    );
  });
}
