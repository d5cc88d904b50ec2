import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { REQUIRE_SERVICES, SETUP_TIMEOUT_MS } from './services.ts';
import { scaled } from './wait.ts';

/**
 * Debian's `chromium` package: the browser people use (the npm registry's Playwright cannot download browsers here;
 * .ci/run installs it). `CHROMIUM_PATH` names another binary, and then every suite runs in it.
 */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
/**
 * Debian's `chromium-headless-shell` package: the same Chromium (the same source package and version), built without
 * the browser's user interface for automation, as Playwright's own headless tests run. It renders, runs scripts and
 * enforces policies as Chromium does, for a fifth of the CPU: measured on a 2-core machine, a dashboard suite of 4
 * tests cost Chromium 33 s of CPU and the shell 7. Most suites run in it when it is installed; a suite that asks for
 * the `full` browser (the CSP suite, the helper's own test) runs in `chromium`.
 */
export const HEADLESS_SHELL_PATH = process.env.CHROMIUM_HEADLESS_SHELL_PATH ?? '/usr/bin/chromium-headless-shell';

/** The binary a suite runs in: the headless shell where it is installed and no other Chromium was named. */
function binaryFor(full: boolean): string {
  if (full || process.env.CHROMIUM_PATH) return CHROMIUM_PATH;
  return existsSync(HEADLESS_SHELL_PATH) ? HEADLESS_SHELL_PATH : CHROMIUM_PATH;
}

/** Where screenshots of failed browser tests go (relative to the repository root). */
export const TEST_RESULTS_DIR = path.resolve(import.meta.dirname, '../../../test-results');

const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export interface TestBrowser {
  /** The Chromium binary it runs in. */
  binary: string;
  browser: BrowserContext;
  /** Every profile opened (the first one and the isolated ones): browser contexts of the process's Chromium. */
  contexts: BrowserContext[];
  /** A new tab (its own page; cookies are shared within this browser). */
  page(): Promise<Page>;
  /** A fresh browser profile: no cookie of the other. */
  isolated(): Promise<BrowserContext>;
  close(): Promise<void>;
}

const noChromium = (binary: string) =>
  `Chromium is not installed at ${binary}: install it with \`sudo apt-get install chromium chromium-headless-shell\` ` +
  '(Debian/Ubuntu; or set CHROMIUM_PATH to a Chromium binary)';

/**
 * Says once per run (not once per skipped suite) that the browser tests are skipped and how to install
 * Chromium. The run's parallel workers share their parent: the first to create the run's marker file says it.
 */
function sayOnceNoChromium(binary: string): void {
  const run = process.env.MOCHA_WORKER_ID === undefined ? process.pid : process.ppid;
  try {
    writeFileSync(path.join(tmpdir(), `print-api-no-chromium-${run}`), '', { flag: 'wx' });
  } catch {
    return; // said already in this run
  }
  process.stderr.write(`\n${noChromium(binary)}; the browser tests are skipped (REQUIRE_SERVICES=1 fails them).\n`);
}

const running = new Map<string, Promise<Browser>>();

/**
 * This test process's Chromium, launched on first use and again if it went away. Each suite (and each
 * `isolated()` profile) gets a fresh browser context of it: its own cookies, storage and cache, as a new
 * profile would have, at a quarter of a launch's cost (a launch is 1.5–2 s of CPU on a 2-core machine, a
 * context about 0.4 s; the browser suites made some 25 launches a run). Playwright closes it when the process exits.
 */
async function chromiumOfThisProcess(binary: string): Promise<Browser> {
  const browser = await running.get(binary)?.catch(() => undefined);
  if (browser?.isConnected()) return browser;
  const launching = chromium.launch({ executablePath: binary, headless: true, args: FLAGS, timeout: SETUP_TIMEOUT_MS });
  running.set(binary, launching);
  return launching;
}

/**
 * Headless Chromium for a suite, with a fresh profile (a browser context of its own), through playwright-core: the
 * headless shell where it is installed, `chromium` itself with `full`. Skips the suite when Chromium is not installed, saying so once per run with the command that
 * installs it (fails it under REQUIRE_SERVICES=1). Most suites want `suiteBrowser`, which also takes screenshots of failures.
 */
export async function launchBrowser(ctx: Mocha.Context, opts: { full?: boolean } = {}): Promise<TestBrowser> {
  if (ctx.timeout() < SETUP_TIMEOUT_MS) ctx.timeout(SETUP_TIMEOUT_MS);
  const binary = binaryFor(opts.full === true);
  if (!existsSync(binary)) {
    if (REQUIRE_SERVICES) throw new Error(`${noChromium(binary)} and REQUIRE_SERVICES=1`);
    sayOnceNoChromium(binary);
    ctx.skip();
  }
  const chromiumHere = await chromiumOfThisProcess(binary);
  const contexts: BrowserContext[] = [];
  const open = async (): Promise<BrowserContext> => {
    const context = await chromiumHere.newContext();
    // Playwright's 30 s for an action, a wait or a navigation, grown by the run's time scale: a loaded
    // machine renders slowly, and every wait polls for its condition anyway.
    context.setDefaultTimeout(scaled(30_000));
    context.setDefaultNavigationTimeout(scaled(30_000));
    contexts.push(context);
    return context;
  };
  const browser = await open();
  return {
    binary,
    browser,
    contexts,
    page: () => browser.newPage(),
    isolated: open,
    close: async () => {
      await Promise.all(contexts.map((c) => c.close().catch(() => undefined)));
    },
  };
}

/**
 * A browser for the suite around the call: launched before its tests (`launched` receives it),
 * a screenshot of every tab after a failed test, closed after the suite.
 *
 * @example
 * let b: TestBrowser | undefined;
 * suiteBrowser((launched) => (b = launched));
 */
export function suiteBrowser(launched: (b: TestBrowser) => void, opts: { full?: boolean } = {}): void {
  let b: TestBrowser | undefined;
  before(async function () {
    b = await launchBrowser(this, opts);
    launched(b);
  });
  afterEach(async function () {
    await screenshotOnFailure(this, b);
  });
  after(async () => b?.close());
}

/** After a failed test: a full-page screenshot of every open tab under test-results/, named after the test. */
export async function screenshotOnFailure(ctx: Mocha.Context, b: TestBrowser | undefined): Promise<string[]> {
  if (!b || ctx.currentTest?.state !== 'failed') return [];
  mkdirSync(TEST_RESULTS_DIR, { recursive: true });
  const base = (ctx.currentTest.fullTitle() || 'test').replace(/[^A-Za-z0-9_-]+/g, '-').slice(0, 120);
  const written: string[] = [];
  const pages = b.contexts.flatMap((c) => c.pages());
  for (const [i, page] of pages.entries()) {
    const file = path.join(TEST_RESULTS_DIR, `${base}${pages.length > 1 ? `-${i + 1}` : ''}.png`);
    try {
      await page.screenshot({ path: file, fullPage: true, timeout: 10_000 });
      written.push(file);
    } catch {
      // A closed or crashed page has nothing to show.
    }
  }
  if (written.length) console.log(`    screenshots: ${written.join(', ')}`);
  return written;
}

/** A screenshot of one page under test-results/ (for a test that wants one whatever happens). */
export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(TEST_RESULTS_DIR, { recursive: true });
  const file = path.join(TEST_RESULTS_DIR, `${name.replace(/[^A-Za-z0-9_-]+/g, '-')}.png`);
  await page.screenshot({ path: file, fullPage: true });
  return file;
}
