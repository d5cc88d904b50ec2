import { CsrfField, html, sendPage, type VNode } from '../../../web/html.ts';
import type { PlatformName } from '../../code-words.ts';
import { noticeOf, redirect, type DashContext } from '../dashboard-context.ts';
import type { Register } from '../dashboard-router.ts';
import { DashLayout, Input, NextPage, PostButton, refusal, when } from './parts.ts';
import type { Api, Data, ListPage } from '../dashboard-data.ts';
import { sandboxPages } from './sandbox-pages.ts';
import { listingKey, storePageOf } from './store-page.ts';

/** A field of a connect form: an optional one (a default applies) is not `required` and shows its hint. */
export interface FormField {
  name: string;
  optional: boolean;
  hint?: string;
}

/** The connect forms of one loaded connector: the fields of each way it connects. */
export interface PlatformForms {
  platform: string;
  displayName: string;
  /** Pasted credentials (`POST /stores`). */
  connectFields: FormField[];
  /** A key-issuing flow (`POST /stores/credential-requests`, WooCommerce's), when it has one. */
  requestFields?: FormField[];
  /** An OAuth install (`POST /stores/install-links`), when the operator has set it up. */
  installFields?: FormField[];
  /** Its stores connect with test keys only (the sandbox): offered in test mode, in one click. */
  testModeOnly?: boolean;
}

/** A connect form's field as a person reads it: `consumerSecret` → 'Consumer secret'. */
const labelOf = (name: string) =>
  name
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .replace(/^./, (c) => c.toUpperCase())
    .replace(/ ([A-Z])/g, (_, c: string) => ` ${c.toLowerCase()}`)
    .replace(/\burl\b/i, 'URL');
const isSecret = (name: string) => /secret|token|password|key/i.test(name);

interface FormErrors {
  /** Which form failed (`connect:WOOCOMMERCE`), its message and fields. */
  form: string;
  message: string;
  fields: Record<string, string>;
  values: Record<string, string>;
}

/** Stores: connect (per platform, each way it connects), each store's state, listings, ingests. */
export function storesPages(
  register: Register,
  deps: { platforms: PlatformForms[]; publicUrl: string; platformName: PlatformName },
): void {
  const byPlatform = new Map(deps.platforms.map((p) => [p.platform, p]));
  const storePage = storePageOf(byPlatform, deps.platformName);
  // An optional field left empty is left out, so that its default applies.
  const fieldsOf = (form: Record<string, string>, fields: FormField[]) =>
    Object.fromEntries(fields.filter((f) => !(f.optional && !form[f.name])).map((f) => [f.name, form[f.name] ?? '']));

  register('get', '/stores', (d) => listPage(d));

  register('post', '/stores/connect', async (d) => {
    const platform = byPlatform.get(d.form.platform ?? '');
    if (!platform) return listPage(d, { form: 'connect', message: 'Choose a platform.', fields: {}, values: {} });
    const fields = fieldsOf(d.form, platform.connectFields);
    try {
      const store = (
        await d.api<Data<Api['Store']>>('POST', '/stores', { body: { platform: platform.platform, ...fields } })
      ).data;
      redirect(d.res, `/dashboard/stores/${store.id}?done=store-connected`);
    } catch (err) {
      const r = refusal(err);
      await listPage(d, {
        form: `connect:${platform.platform}`,
        message: r.message,
        fields: r.fields,
        values: {
          ...fields,
          ...Object.fromEntries(platform.connectFields.filter((f) => isSecret(f.name)).map((f) => [f.name, ''])),
        },
      });
    }
  });

  register('post', '/stores/request', async (d) => {
    const platform = byPlatform.get(d.form.platform ?? '');
    if (!platform?.requestFields)
      return listPage(d, {
        form: 'request',
        message: 'This platform does not issue keys to us.',
        fields: {},
        values: {},
      });
    const fields = fieldsOf(d.form, platform.requestFields);
    try {
      const { redirectUrl } = (
        await d.api<Data<{ redirectUrl: string }>>('POST', '/stores/credential-requests', {
          body: {
            platform: platform.platform,
            returnUrl: `${deps.publicUrl}/dashboard/stores?done=store-connected`,
            ...fields,
          },
        })
      ).data;
      leaveFor(d, redirectUrl, `${platform.displayName}: approve our app in your store`);
    } catch (err) {
      const r = refusal(err);
      await listPage(d, { form: `request:${platform.platform}`, message: r.message, fields: r.fields, values: fields });
    }
  });

  register('post', '/stores/install', async (d) => {
    const platform = byPlatform.get(d.form.platform ?? '');
    if (!platform?.installFields)
      return listPage(d, { form: 'install', message: 'This platform has no app to install.', fields: {}, values: {} });
    const fields = fieldsOf(d.form, platform.installFields);
    try {
      const { installUrl } = (
        await d.api<Data<Api['InstallLink']>>('POST', '/stores/install-links', {
          body: {
            platform: platform.platform,
            returnUrl: `${deps.publicUrl}/dashboard/stores?done=store-connected`,
            ...fields,
          },
        })
      ).data;
      leaveFor(d, installUrl, `${platform.displayName}: install our app`);
    } catch (err) {
      const r = refusal(err);
      await listPage(d, { form: `install:${platform.platform}`, message: r.message, fields: r.fields, values: fields });
    }
  });

  register('get', '/stores/{id}', (d) => storePage(d));

  sandboxPages(register, (d, errors) => storePage(d, undefined, undefined, errors));

  register('post', '/stores/{id}/sync', async (d) => {
    const id = String(d.req.params.id);
    try {
      await d.api('POST', `/stores/${encodeURIComponent(id)}/sync`);
      redirect(d.res, `/dashboard/stores/${encodeURIComponent(id)}?done=sync-requested`);
    } catch (err) {
      await storePage(d, refusal(err).message);
    }
  });

  register('post', '/stores/{id}/disconnect', async (d) => {
    const id = String(d.req.params.id);
    await d.api('DELETE', `/stores/${encodeURIComponent(id)}`);
    redirect(d.res, `/dashboard/stores/${encodeURIComponent(id)}?done=store-disconnected`);
  });

  register('post', '/stores/{id}/ingests/{ingestId}/retry', async (d) => {
    const id = String(d.req.params.id);
    try {
      const ingestId = encodeURIComponent(String(d.req.params.ingestId));
      const after = (
        await d.api<Data<Api['StoreIngest']>>('POST', `/stores/${encodeURIComponent(id)}/ingests/${ingestId}/retry`)
      ).data;
      // What the retry did, said on the page it lands on: placed, or still skipped (and why).
      redirect(d.res, `/dashboard/stores/${encodeURIComponent(id)}?retried=${encodeURIComponent(after.id)}`);
    } catch (err) {
      await storePage(d, refusal(err).message);
    }
  });

  // An unmatched listing mapped to one of the reseller's products as it is (POST /stores/{id}/links): then offered the
  // retry of its skipped orders.
  register('post', '/stores/{id}/listings/map', async (d) => {
    const id = String(d.req.params.id);
    const externalProductId = d.form.externalProductId ?? '';
    const body = {
      resellerProduct: d.form.resellerProduct ?? '',
      externalProductId,
      ...(d.form.externalVariantId ? { externalVariantId: d.form.externalVariantId } : {}),
    };
    try {
      await d.api('POST', `/stores/${encodeURIComponent(id)}/links`, { body });
      redirect(
        d.res,
        `/dashboard/stores/${encodeURIComponent(id)}?done=listing-mapped&mapped=${encodeURIComponent(externalProductId)}`,
      );
    } catch (err) {
      const r = refusal(err);
      await storePage(d, undefined, undefined, undefined, {
        key: listingKey(externalProductId, d.form.externalVariantId || null),
        message: r.fields.resellerProduct ?? r.message,
      });
    }
  });

  register('post', '/stores/{id}/links/{linkId}/delete', async (d) => {
    const id = String(d.req.params.id);
    await d.api('DELETE', `/stores/${encodeURIComponent(id)}/links/${encodeURIComponent(String(d.req.params.linkId))}`);
    redirect(d.res, `/dashboard/stores/${encodeURIComponent(id)}?done=listing-unmapped`);
  });

  register('post', '/stores/{id}/ingests/retry-skipped', async (d) => {
    const id = String(d.req.params.id);
    try {
      const body = {
        status: 'skipped',
        ...(d.form.externalProductId ? { externalProductId: d.form.externalProductId } : {}),
      };
      await d.api('POST', `/stores/${encodeURIComponent(id)}/ingests/retry`, { body });
      redirect(d.res, `/dashboard/stores/${encodeURIComponent(id)}?done=skipped-retried`);
    } catch (err) {
      await storePage(d, refusal(err).message);
    }
  });

  // One step from an unmatched listing to the product that matches it: its SKU and title, a catalogue product.
  register('post', '/stores/{id}/listings/product', async (d) => {
    const id = String(d.req.params.id);
    const body = {
      sku: d.form.sku ?? '',
      title: d.form.title ?? '',
      productId: d.form.productId ?? '',
      ...(d.form.fileUrl ? { fileUrl: d.form.fileUrl } : {}),
    };
    try {
      await d.api('POST', '/reseller-products', { body });
      redirect(d.res, `/dashboard/stores/${encodeURIComponent(id)}?done=product-created`);
    } catch (err) {
      const r = refusal(err);
      await storePage(d, undefined, { sku: d.form.sku ?? '', message: r.message, fields: r.fields });
    }
  });

  /**
   * Sends the browser on to the platform. Not a redirect: the pages' policy lets forms send to
   * this site only (CSP form-action, which also covers a form's redirects), so a page links
   * there and refreshes to it at once.
   */
  function leaveFor(d: DashContext, url: string, title: string): void {
    d.res.set('Refresh', `0;url=${url}`);
    sendPage(
      d.res,
      html`<${DashLayout} title=${title} session=${d.page}><p>Continue to <a href=${url} rel="noreferrer">${new URL(url).host}</a>; you come back here once it is done.</p><//>`,
    );
  }

  async function listPage(d: DashContext, errors?: FormErrors): Promise<void> {
    const cursor = typeof d.req.query.cursor === 'string' ? d.req.query.cursor : undefined;
    const page = await d.api<ListPage<Api['Store']>>('GET', '/stores', { query: { limit: '50', cursor } });
    const stores = page.data;
    // A test-only platform (the sandbox) is for test mode: there it connects in one click.
    const platforms = deps.platforms.filter((p) => !p.testModeOnly || d.page.mode === 'test');
    const lastOrders = await Promise.all(
      stores.map(
        async (s) =>
          (await d.api<ListPage<Api['StoreIngest']>>('GET', `/stores/${s.id}/ingests`, { query: { limit: '1' } }))
            .data[0]?.createdAt,
      ),
    );
    const form = (
      kind: string,
      p: PlatformForms,
      fields: FormField[],
      action: string,
      button: string,
      intro: string,
    ): VNode => {
      const e = errors?.form === `${kind}:${p.platform}` ? errors : undefined;
      return html`<form class="stack" method="post" action=${action} aria-label=${`${button} (${p.displayName})`}>
        <${CsrfField} token=${d.page.csrfToken} />
        <input type="hidden" name="platform" value=${p.platform} />
        <p class="muted">${intro}</p>
        ${e ? html`<p class="alert" role="alert">${e.message}</p>` : null}
        ${fields.map(
          ({ name: n, optional, hint }) =>
            html`<${Input} idPrefix=${`${kind}-${p.platform.toLowerCase()}`} name=${n} label=${optional ? `${labelOf(n)} (optional)` : labelOf(n)} type=${isSecret(n) ? 'password' : n.toLowerCase().includes('url') ? 'url' : 'text'} value=${e?.values[n] ?? ''} error=${e?.fields[n]} required=${!optional} hint=${hint} autocomplete="off" />`,
        )}
        <button type="submit">${button}</button>
      </form>`;
    };
    sendPage(
      d.res,
      html`<${DashLayout} title="Stores" session=${d.page} notice=${noticeOf(d.req)} error=${errors && !errors.form.includes(':') ? errors.message : undefined}>
        <section aria-labelledby="stores-h">
          <h2 id="stores-h">Your stores</h2>
          ${
            stores.length === 0
              ? html`<p class="muted">No store connected yet: connect one below.</p>`
              : html`<div class="table"><table>
                <thead><tr><th scope="col">Store</th><th scope="col">Platform</th><th scope="col">State</th><th scope="col">Last order received</th><th scope="col">Last error</th></tr></thead>
                <tbody>${stores.map(
                  (s, i) => html`<tr>
                    <td><a href=${`/dashboard/stores/${s.id}`}>${s.name}</a></td><td>${deps.platformName(s.platform)}</td>
                    <td><span class=${`badge ${s.status === 'connected' ? 'good' : ''}`}>${s.status}</span></td>
                    <td>${when(lastOrders[i])}</td><td>${s.lastError ? html`<span class="error">${s.lastError}</span>` : '—'}</td>
                  </tr>`,
                )}</tbody>
              </table></div>`
          }
          <${NextPage} base="/dashboard/stores" query=${{}} cursor=${page.nextCursor} />
        </section>
        ${
          d.page.can('stores:write')
            ? html`<section aria-labelledby="connect-h">
          <h2 id="connect-h">Connect a store</h2>
          ${platforms
            .filter((p) => p.testModeOnly)
            .map(
              (
                p,
              ) => html`<div class="card"><p class="muted">No store at hand? A ${p.displayName.toLowerCase()} store takes store orders you make yourself, and shows what we send back.</p>
              <${PostButton} action="/dashboard/stores/connect" csrf=${d.page.csrfToken} fields=${{ platform: p.platform }} label=${`Try a ${p.displayName.toLowerCase()} store`} /></div>`,
            )}
          ${platforms.map(
            (p) => html`<details class="card" open=${errors?.form.endsWith(`:${p.platform}`) ?? false}>
              <summary><strong>${p.displayName}</strong></summary>
              ${p.installFields ? form('install', p, p.installFields, '/dashboard/stores/install', `Install on ${p.displayName}`, `Install our app on your ${p.displayName} store: you approve it there and come back here.`) : null}
              ${p.requestFields ? form('request', p, p.requestFields, '/dashboard/stores/request', `Connect through ${p.displayName}`, `Your store issues keys to us: you approve it in your store's admin and come back here.`) : null}
              ${p.connectFields.length ? form('connect', p, p.connectFields, '/dashboard/stores/connect', p.testModeOnly ? `Make the ${p.displayName.toLowerCase()} store` : 'Connect with these credentials', p.testModeOnly ? `Or give your ${p.displayName.toLowerCase()} store a name of your own.` : `Or paste credentials you made in your ${p.displayName} admin.`) : null}
            </details>`,
          )}
        </section>`
            : null
        }
      <//>`,
      errors ? 422 : 200,
    );
  }
}
