import { CsrfField, Field, html, sendPage } from '../../../web/html.ts';
import { DELIVERY_STATUS_WORDS, EVENT_TYPE_WORDS, inWords } from '../../code-words.ts';
import { SUBSCRIBABLE_EVENTS } from '../../webhooks/webhook-event-types.ts';
import { noticeOf, redirect, type DashContext } from '../dashboard-context.ts';
import type { Register } from '../dashboard-router.ts';
import { DashLayout, NextPage, PostButton, refusal, when } from './parts.ts';
import type { Api, Data, ListPage } from '../dashboard-data.ts';

/** A secret shown once, right after it was made: never stored where a page could show it again. */
function SecretOnce(props: { secret: string; what: string }) {
  return html`<div class="notice" role="status">
    <p><strong>${props.what}</strong> Copy it now: it is not shown again.</p>
    <p class="secret" data-testid="secret">${props.secret}</p>
  </div>`;
}

/** An endpoint's subscription in words ("Shipped, Delivered"; "All events"). */
function eventsWords(events: string[]): string {
  return events.map((e) => inWords(EVENT_TYPE_WORDS, e)).join(', ');
}

/** Webhooks: endpoints, recent deliveries with their outcome, redelivery, a test event, secret rotation. */
export function webhooksPages(register: Register): void {
  register('get', '/webhooks', (d) => listPage(d));

  register('post', '/webhooks', async (d) => {
    const events = d.form.events ? [d.form.events] : [];
    const all = Array.isArray(d.req.body?.events)
      ? (d.req.body.events as unknown[]).filter((e): e is string => typeof e === 'string')
      : events;
    try {
      const created = (
        await d.api<Data<Api['WebhookEndpointWithSecret']>>('POST', '/webhooks', {
          body: { url: d.form.url ?? '', events: all.length ? all : ['*'] },
        })
      ).data;
      await endpointPage(d, created.id, {
        secret: created.secret,
        what: 'The endpoint is created. Its signing secret:',
      });
    } catch (err) {
      const r = refusal(err);
      await listPage(d, { message: r.message, fields: r.fields, url: d.form.url ?? '' });
    }
  });

  register('get', '/webhooks/{id}', (d) => endpointPage(d, String(d.req.params.id)));

  register('post', '/webhooks/{id}/test', async (d) => {
    const id = encodeURIComponent(String(d.req.params.id));
    await d.api('POST', `/webhooks/${id}/test`);
    redirect(d.res, `/dashboard/webhooks/${id}?done=test-sent`);
  });

  register('post', '/webhooks/{id}/rotate', async (d) => {
    const id = String(d.req.params.id);
    const hours = Number(d.form.expiresInHours ?? '24');
    try {
      const rotated = (
        await d.api<Data<Api['WebhookEndpointWithSecret']>>(
          'POST',
          `/webhooks/${encodeURIComponent(id)}/rotate-secret`,
          { body: { expiresInHours: Number.isInteger(hours) ? hours : 24 } },
        )
      ).data;
      await endpointPage(d, id, {
        secret: rotated.secret,
        what: `The secret is rotated${hours > 0 ? `; the old one keeps signing for ${hours} hours` : ''}. The new secret:`,
      });
    } catch (err) {
      await endpointPage(d, id, undefined, refusal(err).message);
    }
  });

  register('post', '/webhooks/{id}/enable', async (d) => {
    const id = encodeURIComponent(String(d.req.params.id));
    await d.api('POST', `/webhooks/${id}/enable`);
    redirect(d.res, `/dashboard/webhooks/${id}`);
  });

  register('post', '/webhooks/{id}/delete', async (d) => {
    await d.api('DELETE', `/webhooks/${encodeURIComponent(String(d.req.params.id))}`);
    redirect(d.res, '/dashboard/webhooks?done=webhook-deleted');
  });

  register('post', '/webhooks/{id}/deliveries/{deliveryId}/retry', async (d) => {
    const id = encodeURIComponent(String(d.req.params.id));
    try {
      await d.api('POST', `/webhooks/${id}/deliveries/${encodeURIComponent(String(d.req.params.deliveryId))}/retry`);
      redirect(d.res, `/dashboard/webhooks/${id}?done=delivery-retried`);
    } catch (err) {
      await endpointPage(d, String(d.req.params.id), undefined, refusal(err).message);
    }
  });

  async function listPage(
    d: DashContext,
    errors?: { message: string; fields: Record<string, string>; url: string },
  ): Promise<void> {
    const cursor = typeof d.req.query.cursor === 'string' ? d.req.query.cursor : undefined;
    const page = await d.api<ListPage<Api['WebhookEndpoint']>>('GET', '/webhooks', { query: { cursor, limit: '50' } });
    sendPage(
      d.res,
      html`<${DashLayout} title="Webhooks" session=${d.page} notice=${noticeOf(d.req)}>
        ${
          page.data.length === 0
            ? html`<p class="muted">No endpoint yet.</p>`
            : html`<div class="table"><table>
              <thead><tr><th scope="col">URL</th><th scope="col">Events</th><th scope="col">State</th><th scope="col">Failing since</th></tr></thead>
              <tbody>${page.data.map(
                (w) =>
                  html`<tr><td><a href=${`/dashboard/webhooks/${w.id}`}>${w.url}</a></td><td>${eventsWords(w.events)}</td><td>${w.enabled ? 'enabled' : html`<span class="error">disabled</span>`}</td><td>${when(w.failingSince)}</td></tr>`,
              )}</tbody>
            </table></div>`
        }
        <${NextPage} base="/dashboard/webhooks" query=${{}} cursor=${page.nextCursor} />
        ${
          d.page.can('webhooks:write')
            ? html`<section aria-labelledby="new-h">
          <h2 id="new-h">Add an endpoint</h2>
          <p class="muted" data-testid="listen-hint">
            An endpoint is a public https URL. For a receiver on your own machine (such as http://localhost:4000/hooks),
            use <code>listen</code> instead: <code>npm run admin -- listen --api-key ${d.page.mode === 'test' ? 'prk_test_…' : 'prk_live_…'} --forward-to http://localhost:4000/hooks</code>
            (or the SDK's <code>client.events.listen({ forwardTo })</code>) streams your events and delivers them to it, signed as an endpoint's are.
          </p>
          <form class="stack" method="post" action="/dashboard/webhooks" aria-label="Add an endpoint">
            <${CsrfField} token=${d.page.csrfToken} />
            ${errors && !errors.fields.url && !errors.fields.events ? html`<p class="alert" role="alert">${errors.message}</p>` : null}
            <${Field} name="url" label="Receiver URL (https)" type="url" value=${errors?.url ?? ''} error=${errors?.fields.url} required=${true} />
            <fieldset>
              <legend>Events</legend>
              ${SUBSCRIBABLE_EVENTS.map((e) => html`<label title=${e === '*' ? undefined : e}><input type="checkbox" name="events" value=${e} checked=${e === '*'} /> ${inWords(EVENT_TYPE_WORDS, e)}</label>`)}
              ${errors?.fields.events ? html`<p class="error" role="alert">${errors.fields.events}</p>` : null}
            </fieldset>
            <button type="submit">Add endpoint</button>
          </form>
        </section>`
            : null
        }
      <//>`,
      errors ? 422 : 200,
    );
  }

  async function endpointPage(
    d: DashContext,
    id: string,
    secret?: { secret: string; what: string },
    error?: string,
  ): Promise<void> {
    const e = encodeURIComponent(id);
    const endpoint = (await d.api<Data<Api['WebhookEndpoint']>>('GET', `/webhooks/${e}`)).data;
    const deliveries = await d.api<ListPage<Api['WebhookDelivery']>>('GET', `/webhooks/${e}/deliveries`, {
      query: { limit: '25', cursor: typeof d.req.query.cursor === 'string' ? d.req.query.cursor : undefined },
    });
    sendPage(
      d.res,
      html`<${DashLayout} title=${`Webhook ${endpoint.url}`} session=${d.page} notice=${noticeOf(d.req)} error=${error}>
        <p><a href="/dashboard/webhooks">← Webhooks</a></p>
        ${secret ? html`<${SecretOnce} ...${secret} />` : null}
        <dl class="facts">
          <dt>URL</dt><dd>${endpoint.url}</dd>
          <dt>Events</dt><dd>${eventsWords(endpoint.events)}</dd>
          <dt>State</dt><dd>${endpoint.enabled ? 'enabled' : html`<span class="error">disabled: ${endpoint.disabledReason ?? ''}</span>`}</dd>
          <dt>Failing since</dt><dd>${when(endpoint.failingSince)}</dd>
        </dl>
        ${
          d.page.can('webhooks:write')
            ? html`<p>
          <${PostButton} action=${`/dashboard/webhooks/${e}/test`} csrf=${d.page.csrfToken} label="Send a test event" />
          ${' '}${endpoint.enabled ? null : html`<${PostButton} action=${`/dashboard/webhooks/${e}/enable`} csrf=${d.page.csrfToken} label="Enable" />`}
          ${' '}<${PostButton} action=${`/dashboard/webhooks/${e}/delete`} csrf=${d.page.csrfToken} label="Delete endpoint" confirm="Delete this endpoint?" />
        </p>
        <form class="stack" method="post" action=${`/dashboard/webhooks/${e}/rotate`} aria-label="Rotate the secret">
          <${CsrfField} token=${d.page.csrfToken} />
          <${Field} name="expiresInHours" label="Keep the old secret signing for (hours, 0 = stop now)" type="number" value="24" />
          <button type="submit">Rotate secret</button>
        </form>`
            : null
        }
        <section aria-labelledby="deliveries-h">
          <h2 id="deliveries-h">Recent deliveries</h2>
          ${
            deliveries.data.length === 0
              ? html`<p class="muted">Nothing delivered yet.</p>`
              : html`<div class="table"><table>
                <thead><tr><th scope="col">Event</th><th scope="col">Status</th><th scope="col">Response</th><th scope="col">Attempts</th><th scope="col">Last attempt</th><th scope="col"></th></tr></thead>
                <tbody>${deliveries.data.map(
                  (x) => html`<tr>
                    <td data-code=${x.eventType}>${inWords(EVENT_TYPE_WORDS, x.eventType)}</td>
                    <td><span class=${`badge ${x.status === 'delivered' ? 'good' : x.status === 'failed' ? 'bad' : ''}`} data-code=${x.status}>${inWords(DELIVERY_STATUS_WORDS, x.status)}</span></td>
                    <td>${x.lastStatusCode ?? '—'}${x.lastLatencyMs !== null ? ` in ${x.lastLatencyMs} ms` : ''}${x.lastError ? html` <span class="error">${x.lastError}</span>` : null}</td>
                    <td>${x.attemptCount}</td><td>${when(x.lastAttemptAt)}</td>
                    <td>${d.page.can('webhooks:write') ? html`<${PostButton} action=${`/dashboard/webhooks/${e}/deliveries/${x.id}/retry`} csrf=${d.page.csrfToken} label="Redeliver" name=${`Redeliver ${inWords(EVENT_TYPE_WORDS, x.eventType).toLowerCase()}`} />` : null}</td>
                  </tr>`,
                )}</tbody>
              </table></div>`
          }
          <${NextPage} base=${`/dashboard/webhooks/${e}`} query=${{}} cursor=${deliveries.nextCursor} />
        </section>
      <//>`,
    );
  }
}
