import { expect } from 'chai';
import type { Page } from 'playwright-core';
import type { Connector } from '@print-api/connector-kit';
import { suiteBrowser, type TestBrowser } from './browser.ts';
import { connectorE2eService } from './connector-e2e.ts';
import type { TestHttpsServer } from './https-server.ts';
import type { TestService } from './test-service.ts';
import { ORDER_SOURCES } from '../../src/modules/orders/order-states.ts';

/** The address the service is told it has: login links carry it, the browser opens the service's own. */
export const DASHBOARD_PUBLIC_URL = 'https://print-api.example.com';

/**
 * The set-up of a dashboard suite in a browser, registered as the calling suite's hooks: the
 * connector suites' service (PostgreSQL + Redis, the platforms behind nock, a print-file host)
 * with `connectors` and more environment in `env`, and a headless Chromium. `ready` receives them once they run.
 */
export function dashboardBrowserSuite(
  connectors: Array<Connector<any, any>>,
  ready: (started: { t: TestService; files: TestHttpsServer; b: TestBrowser }) => void,
  env: Record<string, string> = {},
): void {
  let started: { t: TestService; files: TestHttpsServer } | undefined;
  connectorE2eService(DASHBOARD_PUBLIC_URL, { connectors }, (s) => (started = s), env);
  suiteBrowser((b) => ready({ ...started!, b }));
}

/** A login link of `key`, at the service's own address (as the browser opens it). */
export async function loginLink(t: TestService, key: string): Promise<string> {
  const res = await t.api(key, 'POST', '/dashboard-links');
  expect(res.status, JSON.stringify(res.body)).to.equal(201);
  const url = new URL(res.body.data.url as string);
  return `${t.baseUrl}${url.pathname}${url.search}`;
}

/** Signs `page` in to the dashboard with a login link of `key`: the dashboard's home once done. */
export async function signInToDashboard(page: Page, t: TestService, key: string): Promise<void> {
  await page.goto(await loginLink(t, key));
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(`${t.baseUrl}/dashboard`);
}

/** Codes a page for people should not show: `AWAITING_FILE`, `SANDBOX`, `order.shipped`, `no_print_lines`. */
const CODES = [
  /\b[A-Z]{3,}_[A-Z_]+\b/g,
  new RegExp(`\\b(?:${[...ORDER_SOURCES, 'SANDBOX', 'DASHBOARD'].filter((s) => s !== 'API').join('|')})\\b`, 'g'),
  /\b(?:order|store)\.[a-z_]+\b/g,
  /\b[a-z]+_[a-z_]+\b/g,
];

/**
 * The codes in the rendered text of `page` (what a person reads: `innerText`), leaving out the
 * elements `skip` selects: scripts, styles and `<code>`, text meant to be typed as it is (a
 * command; on the console, an id or the code shown small beside its words).
 */
export async function codesShown(page: Page, skip = 'script, style, code'): Promise<string[]> {
  const text = await page.evaluate<string>(
    `(() => { const body = document.body.cloneNode(true); for (const e of body.querySelectorAll(${JSON.stringify(skip)})) e.remove(); return body.innerText; })()`,
  );
  return CODES.flatMap((re) => text.match(re) ?? []);
}
