import { CsrfField, html, sendPage, type VNode } from '../../../web/html.ts';
import type { PlatformName } from '../../code-words.ts';
import { noticeOf, redirect, type DashContext } from '../dashboard-context.ts';
import type { Register } from '../dashboard-router.ts';
import { DashLayout, Input, NextPage, PostButton, refusal, Select, when } from './parts.ts';
import type { Api, Data, ListPage } from '../dashboard-data.ts';
import { sandboxPages, sandboxSection, type SandboxOrderErrors } from './sandbox-pages.ts';
import { ingestOutcome, retriedNotice, skippedLine, storeAddress } from './store-words.ts';

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

/** A listing's key in a page (ids and form errors): its product and variant. */
const listingKey = (productId: string, variantId: string | null) =>
  `${productId}-${variantId ?? 'p'}`.replace(/[^A-Za-z0-9_-]/g, '_');

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

  async function storePage(
    d: DashContext,
    error?: string,
    productError?: { sku: string; message: string; fields: Record<string, string> },
    sandboxError?: SandboxOrderErrors,
    mapError?: { key: string; message: string },
  ): Promise<void> {
    const id = encodeURIComponent(String(d.req.params.id));
    const store = (await d.api<Data<Api['Store']>>('GET', `/stores/${id}`)).data;
    const unmatchedCursor = typeof d.req.query.unmatched === 'string' ? d.req.query.unmatched : undefined;
    // The listing just mapped (`?mapped=`): its skipped orders are offered a retry. Not an id the API could take: none.
    const mapped =
      typeof d.req.query.mapped === 'string' && d.req.query.mapped.length > 0 && d.req.query.mapped.length <= 100
        ? d.req.query.mapped
        : undefined;
    const canMap = d.page.can('stores:write') && d.page.can('reseller-products:read');
    const [unmatched, matched, ingests, catalogue, own, skipped] = await Promise.all([
      d.api<ListPage<Api['StoreListing']>>('GET', `/stores/${id}/listings`, {
        query: { matched: 'false', limit: '50', cursor: unmatchedCursor },
      }),
      d.api<ListPage<Api['StoreListing']>>('GET', `/stores/${id}/listings`, {
        query: { matched: 'true', limit: '50' },
      }),
      d.api<ListPage<Api['StoreIngest']>>('GET', `/stores/${id}/ingests`, { query: { limit: '25' } }),
      d.page.can('catalog:read')
        ? d.api<Pick<ListPage<Api['Product']>, 'data'>>('GET', '/products', { query: { limit: '100', lang: 'en' } })
        : Promise.resolve({ data: [] }),
      canMap
        ? d.api<Pick<ListPage<Api['ResellerProduct']>, 'data'>>('GET', '/reseller-products', {
            query: { active: 'true', limit: '100' },
          })
        : Promise.resolve({ data: [] }),
      mapped && d.page.can('stores:write')
        ? d.api<ListPage<Api['StoreIngest']>>('GET', `/stores/${id}/ingests`, {
            query: { status: 'skipped', externalProductId: mapped, limit: '100' },
          })
        : Promise.resolve(undefined),
    ]);
    const products = [
      { value: '', label: 'Choose a print product…' },
      ...catalogue.data.map((p) => ({ value: p.id, label: p.name ?? p.id })),
    ];
    const resellerProducts = [
      { value: '', label: 'Choose one of your products…' },
      ...own.data.map((p) => ({ value: p.id, label: `${p.sku} (${p.title})` })),
    ];
    const connected = store.status === 'connected';
    const sandbox = byPlatform.get(store.platform)?.testModeOnly
      ? await sandboxSection(d, id, connected && d.page.can('stores:write'), sandboxError)
      : null;
    const retryCount = skipped ? `${skipped.data.length}${skipped.nextCursor ? '+' : ''}` : '0';
    sendPage(
      d.res,
      html`<${DashLayout} title=${store.name} session=${d.page} notice=${retriedNotice(d.req, ingests.data) ?? noticeOf(d.req)} error=${error}>
        <dl class="facts">
          <dt>Platform</dt><dd>${deps.platformName(store.platform)}</dd>
          <dt>State</dt><dd><span class=${`badge ${connected ? 'good' : ''}`} data-testid="store-state">${store.status}</span>${store.testMode ? html` <span class="badge test">test</span>` : null}</dd>
          ${storeAddress(store, deps.platformName(store.platform))}
          <dt>Last order received</dt><dd>${when(ingests.data[0]?.createdAt)}</dd>
          <dt>Last poll</dt><dd>${when(store.lastPolledAt)}</dd>
          <dt>Last error</dt><dd>${store.lastError ? html`<span class="error">${store.lastError}</span>` : '—'}</dd>
          ${(store.notices as string[]).length > 0 ? html`<dt>Notices</dt><dd><ul data-testid="store-notices">${(store.notices as string[]).map((n) => html`<li>${n}</li>`)}</ul></dd>` : null}
        </dl>
        ${
          connected && d.page.can('stores:write')
            ? html`<p>
              <${PostButton} action=${`/dashboard/stores/${id}/sync`} csrf=${d.page.csrfToken} label="Sync now" />
              ${' '}<${PostButton} action=${`/dashboard/stores/${id}/disconnect`} csrf=${d.page.csrfToken} label="Disconnect" confirm="Disconnect this store? No more orders are taken from it." />
            </p>`
            : null
        }
        ${sandbox}
        ${
          skipped && skipped.data.length > 0 && connected
            ? html`<section class="card" aria-labelledby="retry-h" data-testid="retry-skipped">
              <h2 id="retry-h">Skipped orders of the listing</h2>
              <p>${retryCount} store order${skipped.data.length === 1 ? ' was' : 's were'} skipped before the listing was mapped: retry ${skipped.data.length === 1 ? 'it' : 'them'} now to print ${skipped.data.length === 1 ? 'it' : 'them'} as the product.</p>
              <${PostButton} action=${`/dashboard/stores/${id}/ingests/retry-skipped`} csrf=${d.page.csrfToken} fields=${{ externalProductId: mapped! }} label=${`Retry ${retryCount} skipped order${skipped.data.length === 1 ? '' : 's'}`} />
            </section>`
            : null
        }
        <section aria-labelledby="unmatched-h">
          <h2 id="unmatched-h">Unmatched listings</h2>
          <p class="muted">Their SKU is none of your products: orders for them are skipped until you create the product, or map the listing to one of your products as it is.</p>
          ${
            unmatched.data.length === 0
              ? html`<p class="muted">Every listing matches one of your products.</p>`
              : html`<div class="table"><table>
                <thead><tr><th scope="col">Listing</th><th scope="col">SKU</th><th scope="col">Create the product</th>${canMap ? html`<th scope="col">Map to product</th>` : null}</tr></thead>
                <tbody>${unmatched.data.map((l) => {
                  const e = productError && productError.sku === l.sku ? productError : undefined;
                  const key = listingKey(l.externalProductId, l.externalVariantId);
                  return html`<tr data-listing=${l.sku ?? ''}>
                    <td>${l.title}${l.active ? null : html` <span class="badge">inactive</span>`}</td>
                    <td>${l.sku ?? html`<span class="muted">no SKU: give it one in your store</span>`}</td>
                    <td>${
                      l.sku && d.page.can('reseller-products:write')
                        ? html`<form method="post" action=${`/dashboard/stores/${id}/listings/product`} aria-label=${`Create the product for ${l.sku}`}>
                          <${CsrfField} token=${d.page.csrfToken} />
                          <input type="hidden" name="sku" value=${l.sku} />
                          <input type="hidden" name="title" value=${l.title} />
                          <${Select} idPrefix=${`listing-${key}`} name="productId" label=${`Print product for ${l.sku}`} options=${products} error=${e?.fields.productId} required=${true} />
                          <label for=${`file-${key}`}>Artwork URL (optional)</label>
                          <input id=${`file-${key}`} name="fileUrl" type="url" placeholder="https://…" aria-invalid=${e?.fields.fileUrl ? 'true' : undefined} />
                          ${e?.fields.fileUrl ? html`<p class="error" role="alert">${e.fields.fileUrl}</p>` : null}
                          ${e && !e.fields.productId && !e.fields.fileUrl ? html`<p class="error" role="alert">${e.message}</p>` : null}
                          <button type="submit">Create product ${l.sku}</button>
                        </form>`
                        : null
                    }</td>
                    ${canMap ? html`<td>${mapForm(l, mapError?.key === listingKey(l.externalProductId, l.externalVariantId) ? mapError.message : undefined)}</td>` : null}
                  </tr>`;
                })}</tbody>
              </table></div>`
          }
          ${unmatched.nextCursor ? html`<p><a href=${`/dashboard/stores/${id}?unmatched=${encodeURIComponent(unmatched.nextCursor)}`}>More unmatched listings →</a></p>` : null}
        </section>
        <section aria-labelledby="matched-h">
          <h2 id="matched-h">Matched listings</h2>
          ${
            matched.data.length === 0
              ? html`<p class="muted">None yet.</p>`
              : html`<div class="table"><table>
                <thead><tr><th scope="col">Listing</th><th scope="col">SKU</th><th scope="col">Your product</th><th scope="col">Matched by</th></tr></thead>
                <tbody>${matched.data.map(
                  (l) => html`<tr>
                    <td>${l.title}</td><td>${l.sku ?? '—'}</td>
                    <td>${l.resellerProduct ? html`<a href=${`/dashboard/products/${l.resellerProduct.id}`}>${l.resellerProduct.sku}</a>` : null}</td>
                    <td>${l.match.by === 'link' ? 'mapped' : 'SKU'}${
                      l.match.linkId && d.page.can('stores:write')
                        ? html` <${PostButton} action=${`/dashboard/stores/${id}/links/${l.match.linkId}/delete`} csrf=${d.page.csrfToken} label="Unmap" name=${`Unmap ${l.title}`} confirm="Unmap this listing? Its next orders are skipped unless its SKU is one of your products." />`
                        : null
                    }</td>
                  </tr>`,
                )}</tbody>
              </table></div>`
          }
        </section>
        <section aria-labelledby="ingests-h">
          <h2 id="ingests-h">Store orders received</h2>
          ${
            ingests.data.length === 0
              ? html`<p class="muted">No store order yet.</p>`
              : html`<div class="table"><table>
                <thead><tr><th scope="col">Store order</th><th scope="col">Outcome</th><th scope="col">Print order</th><th scope="col">Skipped / error</th><th scope="col">Seen</th><th scope="col"></th></tr></thead>
                <tbody>${ingests.data.map(
                  (i) => html`<tr>
                    <td>${i.externalName ?? i.externalOrderId}</td>
                    <td><span class=${`badge ${i.status === 'placed' ? 'good' : i.status === 'failed' || i.status === 'no_print_lines' ? 'bad' : ''}`}>${ingestOutcome(i)}</span></td>
                    <td>${i.orderId ? html`<a href=${`/dashboard/orders/${i.orderId}`}>${i.orderId}</a>` : '—'}</td>
                    <td>${i.error ? html`<span class="error">${i.error}</span>` : null}${i.skippedLines.map((l) => html`<div>${skippedLine(l)}</div>`)}</td>
                    <td>${when(i.createdAt)}</td>
                    <td>${
                      connected &&
                      d.page.can('stores:write') &&
                      (i.status === 'no_print_lines' || i.status === 'failed')
                        ? html`<${PostButton} action=${`/dashboard/stores/${id}/ingests/${i.id}/retry`} csrf=${d.page.csrfToken} label="Retry" name=${`Retry ${i.externalName ?? i.externalOrderId}`} />`
                        : null
                    }</td>
                  </tr>`,
                )}</tbody>
              </table></div>`
          }
        </section>
      <//>`,
      productError || sandboxError || mapError ? 422 : 200,
    );

    /** The "Map to product" form of an unmatched listing: one of the reseller's products, the listing as it is. */
    function mapForm(l: Api['StoreListing'], message: string | undefined): VNode {
      const key = listingKey(l.externalProductId, l.externalVariantId);
      return html`<form method="post" action=${`/dashboard/stores/${id}/listings/map`} aria-label=${`Map ${l.title} to a product`}>
        <${CsrfField} token=${d.page.csrfToken} />
        <input type="hidden" name="externalProductId" value=${l.externalProductId} />
        ${l.externalVariantId ? html`<input type="hidden" name="externalVariantId" value=${l.externalVariantId} />` : null}
        <${Select} idPrefix=${`map-${key}`} name="resellerProduct" label=${`Your product for ${l.title}`} options=${resellerProducts} error=${message} required=${true} />
        <button type="submit">Map to product</button>
      </form>`;
    }
  }
}
