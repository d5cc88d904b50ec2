import { fileTypeFromBuffer } from 'file-type';
import { SafeFetchError, type SafeFetch } from '../../infra/safe-fetch/safe-fetch.ts';

export type PrintFileType = 'pdf' | 'png' | 'jpg' | 'eps' | 'ai' | 'ps' | 'svg';

export type PrintFileCheck =
  | { ok: true; url: string; fileType: PrintFileType; needsConversion: boolean }
  | { ok: false; url: string; reason: string };

/** Enough bytes for file-type to recognise every format it knows, and for an SVG's root element. */
const SNIFF_BYTES = 64 * 1024;
const CONVERTIBLE: Record<string, PrintFileType> = { eps: 'eps', epsf: 'eps', ai: 'ai', ps: 'ps', svg: 'svg' };

/**
 * Spec §4 rule 6: read the first bytes of a print file (redirects followed, every hop
 * SSRF-checked) and check the real type. PDF, PNG and JPG are print-ready; EPS, AI, PS and SVG
 * are accepted only when the URL ends in their extension and the bytes agree, and go through a
 * manual conversion step.
 */
export class PrintFileChecker {
  readonly #fetch: SafeFetch;
  readonly #timeoutMs: number;
  readonly #maxRedirects: number;

  constructor(deps: { safeFetch: SafeFetch; timeoutMs?: number; maxRedirects?: number }) {
    this.#fetch = deps.safeFetch;
    this.#timeoutMs = deps.timeoutMs ?? 5000;
    this.#maxRedirects = deps.maxRedirects ?? 5;
  }

  async check(url: string): Promise<PrintFileCheck> {
    let response;
    try {
      response = await this.#fetch.request(url, { method: 'GET', timeoutMs: this.#timeoutMs, maxRedirects: this.#maxRedirects, maxBodyBytes: SNIFF_BYTES });
    } catch (err) {
      if (err instanceof SafeFetchError) return { ok: false, url, reason: `The file cannot be fetched: ${err.message}.` };
      throw err;
    }
    if (response.status < 200 || response.status >= 300) {
      return { ok: false, url, reason: `The file URL answered HTTP ${response.status}${response.status >= 300 && response.status < 400 ? ' (a redirect without a usable Location)' : ''}.` };
    }
    return classify(url, response.body);
  }

  /** Checks several URLs; identical URLs are fetched once, at most 4 at a time. */
  async checkMany(urls: string[]): Promise<Map<string, PrintFileCheck>> {
    const unique = [...new Set(urls)];
    const results = new Map<string, PrintFileCheck>();
    let next = 0;
    const worker = async () => {
      while (next < unique.length) {
        const url = unique[next++]!;
        results.set(url, await this.check(url));
      }
    };
    await Promise.all(Array.from({ length: Math.min(4, unique.length) }, worker));
    return results;
  }
}

/** Decides from the bytes (and, for the convertible formats, the URL's extension). */
export async function classify(url: string, bytes: Buffer): Promise<PrintFileCheck> {
  const detected = await fileTypeFromBuffer(bytes);
  const extension = /\.([a-z0-9]+)$/i.exec(new URL(url).pathname)?.[1]?.toLowerCase() ?? '';
  const convertible = CONVERTIBLE[extension];
  if (detected?.ext === 'pdf') {
    // Illustrator files are PDF inside; an .ai URL still goes through conversion.
    return convertible === 'ai' ? { ok: true, url, fileType: 'ai', needsConversion: true } : { ok: true, url, fileType: 'pdf', needsConversion: false };
  }
  if (detected?.ext === 'png') return { ok: true, url, fileType: 'png', needsConversion: false };
  if (detected?.ext === 'jpg') return { ok: true, url, fileType: 'jpg', needsConversion: false };
  const text = bytes.subarray(0, 4096).toString('latin1');
  const postscript = detected?.ext === 'eps' || detected?.ext === 'ps' || text.startsWith('%!PS') || bytes.readUInt32BE(0) === 0xc5d0d3c6;
  if (convertible && convertible !== 'svg' && postscript) return { ok: true, url, fileType: convertible, needsConversion: true };
  const svg = (!detected || detected.ext === 'xml') && /^\s*(<\?xml[^>]*>\s*)?(<!--[\s\S]*?-->\s*)*(<!DOCTYPE svg[^>]*>\s*)?<svg[\s>]/i.test(bytes.subarray(0, SNIFF_BYTES).toString('utf8'));
  if (convertible === 'svg' && svg) return { ok: true, url, fileType: 'svg', needsConversion: true };
  const what = describe(detected?.ext, detected?.mime, text, svg, postscript);
  const ending = extension ? `.${extension}` : 'no file extension';
  const hint = svg
    ? ` behind a URL ending in ${ending}; SVG files are accepted only when the URL ends in .svg`
    : postscript
      ? ` behind a URL ending in ${ending}; PostScript files are accepted only when the URL ends in .eps, .ps or .ai`
      : convertible
        ? ` although the URL ends in .${extension}`
        : '';
  return { ok: false, url, reason: `The file is ${what}${hint}, not a print-ready PDF, PNG or JPG (EPS, AI, PS and SVG are accepted when the URL ends in their extension).` };
}

function describe(ext: string | undefined, mime: string | undefined, text: string, svg: boolean, postscript: boolean): string {
  if (svg) return 'an SVG image';
  if (postscript) return 'a PostScript/EPS file';
  if (ext === 'ico') return 'an icon (ICO)';
  if (ext) return `a ${ext.toUpperCase()} file (${mime})`;
  if (/<(!doctype html|html)[\s>]/i.test(text)) return 'an HTML page';
  if (text.length === 0) return 'empty';
  return 'not a recognised file type';
}
