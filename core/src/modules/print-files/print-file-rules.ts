import { isPostScript, isSvg, sniff } from './content-sniffer.ts';

export type PrintFileType = 'pdf' | 'png' | 'jpg' | 'eps' | 'ai' | 'ps' | 'svg';

export type FileVerdict =
  | { ok: true; fileType: PrintFileType; needsConversion: boolean }
  | { ok: false; reason: string };

type ConvertibleType = 'eps' | 'ai' | 'ps' | 'svg';

const CONVERTIBLE_BY_EXTENSION: Record<string, ConvertibleType> = {
  '.eps': 'eps',
  '.ai': 'ai',
  '.ps': 'ps',
  '.svg': 'svg',
};

/** How each convertible type is recognised in its bytes, and what to call it. */
const CONVERTIBLE: Record<ConvertibleType, { plausible: (bytes: Buffer, kind: string) => boolean; label: string }> = {
  eps: { plausible: (bytes) => isPostScript(bytes), label: 'an EPS file' },
  ps: { plausible: (bytes) => isPostScript(bytes), label: 'a PostScript file' },
  // Illustrator files are PDF inside (since AI 9) or PostScript (older versions).
  ai: { plausible: (bytes, kind) => kind === 'pdf' || isPostScript(bytes), label: 'an Illustrator (AI) file' },
  svg: { plausible: (bytes) => isSvg(bytes), label: 'an SVG image' },
};

const PRINT_READY = 'not a PDF, PNG or JPG';

/**
 * Spec, POST /orders rule 6. The bytes decide: PDF, PNG and JPEG are print-ready whatever
 * the URL says. EPS, AI, PS and SVG are accepted only when the URL path ends in their
 * extension and the bytes agree; they need the manual conversion step. `urlPath` is the
 * path of the URL the reseller gave (not of a redirect target): the spec speaks of "the
 * URL", and that is the one the reseller can see and fix.
 */
export async function judgePrintFile(bytes: Buffer, urlPath: string): Promise<FileVerdict> {
  const sniffed = await sniff(bytes);
  const convertible = convertibleExtension(urlPath);
  if (sniffed.kind === 'empty') return { ok: false, reason: 'the file is empty' };
  if (convertible === 'ai' && sniffed.kind === 'pdf') return { ok: true, fileType: 'ai', needsConversion: true };
  if (sniffed.kind === 'pdf' || sniffed.kind === 'png' || sniffed.kind === 'jpg')
    return { ok: true, fileType: sniffed.kind, needsConversion: false };
  if (convertible) {
    const rule = CONVERTIBLE[convertible];
    if (rule.plausible(bytes, sniffed.kind)) return { ok: true, fileType: convertible, needsConversion: true };
    return { ok: false, reason: `the URL ends in .${convertible} but the file is ${sniffed.label}, not ${rule.label}` };
  }
  if (sniffed.kind === 'svg')
    return {
      ok: false,
      reason: `the file is an SVG image, ${PRINT_READY}; SVG files are accepted only when the URL ends in .svg`,
    };
  if (sniffed.kind === 'eps' || sniffed.kind === 'ps') {
    return {
      ok: false,
      reason: `the file is ${sniffed.label}, ${PRINT_READY}; EPS, PS and AI files are accepted only when the URL ends in .eps, .ps or .ai`,
    };
  }
  return { ok: false, reason: `the file is ${sniffed.label}, ${PRINT_READY}` };
}

function convertibleExtension(urlPath: string): ConvertibleType | undefined {
  const path = safeDecode(urlPath).toLowerCase();
  const dot = path.lastIndexOf('.');
  return dot === -1 ? undefined : CONVERTIBLE_BY_EXTENSION[path.slice(dot)];
}

/** `/art%2Esvg` ends in .svg too; a malformed escape leaves the path as it is. */
function safeDecode(path: string): string {
  try {
    return decodeURIComponent(path);
  } catch {
    return path;
  }
}
