import { SafeFetchError, type SafeFetch } from '../../infra/safe-fetch/safe-fetch.ts';
import { fetchFailureReason, statusReason } from './fetch-failure-reasons.ts';
import { judgePrintFile, type PrintFileType } from './print-file-rules.ts';
import type { SampleFiles } from './sample-files.ts';

export type { PrintFileType } from './print-file-rules.ts';

/** The outcome for one print-file URL; `reason` is written for the reseller. */
export type PrintFileCheck =
  | { ok: true; url: string; fileType: PrintFileType; needsConversion: boolean }
  | { ok: false; url: string; reason: string };

/** Enough for file-type to recognise every format it knows and for an SVG's prolog. */
const SNIFF_BYTES = 64 * 1024;
/** Distinct URLs fetched at once by `checkMany`: one order should not flood one file host. */
const CONCURRENCY = 4;

/** Whose file it is: a sandbox (`prk_test_`) check may use the service's own sample files. */
export interface CheckOptions {
  sandbox?: boolean;
}

/**
 * Checks print files at placing time (spec, POST /orders rule 6): fetches only the first
 * bytes through SafeFetch (https only, redirects followed, every hop address-checked) and
 * judges the real type from them.
 */
export class PrintFileChecker {
  readonly #safeFetch: SafeFetch;
  readonly #limits: { timeoutMs: number; maxRedirects: number };
  readonly #samples: SampleFiles | undefined;

  constructor(deps: { safeFetch: SafeFetch; timeoutMs?: number; maxRedirects?: number; samples?: SampleFiles }) {
    this.#safeFetch = deps.safeFetch;
    this.#limits = { timeoutMs: deps.timeoutMs ?? 5000, maxRedirects: deps.maxRedirects ?? 5 };
    this.#samples = deps.samples;
  }

  /** Checks under way, by URL: placements that need the same file at the same moment share one read of it. */
  readonly #inFlight = new Map<string, Promise<PrintFileCheck>>();

  /**
   * Never rejects for a bad file or an unreachable host; those are `{ ok: false, reason }`.
   * A check of a URL already being read joins that read (the bytes are read while this
   * placement runs); nothing is kept once it is done, so every later placement reads again.
   */
  check(url: string, opts: CheckOptions = {}): Promise<PrintFileCheck> {
    // The service's own sample files are read from memory, never fetched: no exception to the
    // address guard is needed, and for a live key they are no print files.
    if (this.#samples?.isSampleUrl(url)) return this.#sample(url, opts.sandbox === true);
    const pending = this.#inFlight.get(url);
    if (pending) return pending;
    const started = this.#read(url).finally(() => this.#inFlight.delete(url));
    this.#inFlight.set(url, started);
    return started;
  }

  async #read(url: string): Promise<PrintFileCheck> {
    let response;
    try {
      response = await this.#safeFetch.request(url, {
        method: 'GET',
        headers: { accept: '*/*' },
        maxBodyBytes: SNIFF_BYTES,
        ...this.#limits,
      });
    } catch (err) {
      if (err instanceof SafeFetchError) return { ok: false, url, reason: fetchFailureReason(err, url, this.#limits) };
      throw err;
    }
    if (response.status < 200 || response.status >= 300)
      return { ok: false, url, reason: statusReason(response.status) };
    // SafeFetch accepted the URL, so it parses.
    const verdict = await judgePrintFile(response.body, new URL(url).pathname);
    return { url, ...verdict };
  }

  async #sample(url: string, sandbox: boolean): Promise<PrintFileCheck> {
    if (!sandbox)
      return {
        ok: false,
        url,
        reason:
          'the file URL is one of the sample files, which only test (prk_test_) keys can use; live orders need your own print file',
      };
    const verdict = await judgePrintFile(this.#samples!.resolve(url)!, new URL(url).pathname);
    return { url, ...verdict };
  }

  /** Checks every URL once, however often it appears, running at most 4 fetches at a time. */
  async checkMany(urls: string[], opts: CheckOptions = {}): Promise<Map<string, PrintFileCheck>> {
    const distinct = [...new Set(urls)];
    const results = new Map<string, PrintFileCheck>();
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < distinct.length) {
        const url = distinct[next++]!;
        results.set(url, await this.check(url, opts));
      }
    };
    await Promise.all(Array.from({ length: Math.min(CONCURRENCY, distinct.length) }, worker));
    // Insertion order follows completion; callers get the order they asked in.
    return new Map(distinct.map((url) => [url, results.get(url)!]));
  }
}
