import { fileTypeFromBuffer } from 'file-type';

/** What the first bytes of a file are, as far as they tell. */
export interface Sniffed {
  /**
   * file-type's extension when it recognised the bytes; else a text kind (`html`, `svg`, `json`, `text`, `empty`) or
   * `unknown`.
   */
  kind: string;
  /** For messages: "an HTML document", "an ICO icon". */
  label: string;
}

const LABELS: Record<string, string> = {
  pdf: 'a PDF document',
  png: 'a PNG image',
  jpg: 'a JPEG image',
  eps: 'an EPS file',
  ps: 'a PostScript file',
  svg: 'an SVG image',
  html: 'an HTML document',
  xml: 'an XML document',
  json: 'a JSON document',
  text: 'plain text',
  empty: 'empty',
  unknown: 'of an unknown type',
  ico: 'an ICO icon',
  cur: 'a cursor (CUR) file',
  gif: 'a GIF image',
  webp: 'a WebP image',
  tif: 'a TIFF image',
  bmp: 'a BMP image',
  psd: 'a Photoshop (PSD) file',
  zip: 'a ZIP archive',
  gz: 'a gzip archive',
  exe: 'a Windows program',
};

/** Reads the file's real type from its bytes; the URL and the Content-Type are not trusted. */
export async function sniff(bytes: Buffer): Promise<Sniffed> {
  if (bytes.length === 0) return named('empty');
  const detected = await fileTypeFromBuffer(bytes);
  // file-type calls anything starting with `<?xml ` XML; an SVG is the case that matters here.
  if (detected && !(detected.ext === 'xml' && isSvg(bytes))) {
    return {
      kind: detected.ext,
      label: LABELS[detected.ext] ?? `a ${detected.ext.toUpperCase()} file (${detected.mime})`,
    };
  }
  return named(textKind(bytes));
}

function named(kind: string): Sniffed {
  return { kind, label: LABELS[kind] ?? LABELS.unknown! };
}

/** PostScript (EPS, PS, and the older PS-based Illustrator files) or a DOS EPS binary header. */
export function isPostScript(bytes: Buffer): boolean {
  return (
    bytes.subarray(0, 4).toString('latin1') === '%!PS' || (bytes.length >= 4 && bytes.readUInt32BE(0) === 0xc5d0d3c6)
  );
}

/**
 * True when the document's root element is `<svg`: after an optional BOM, XML declaration,
 * comments, processing instructions and DOCTYPE. An HTML page with an inline `<svg>` is not
 * an SVG file, which is why "contains <svg" alone is not enough.
 */
export function isSvg(bytes: Buffer): boolean {
  let text = bytes.toString('utf8').replace(/^\uFEFF/, '');
  const prolog = /^\s*(<\?[\s\S]*?\?>|<!--[\s\S]*?-->|<!DOCTYPE[^[>]*(\[[\s\S]*?\])?\s*>)/i;
  for (let match = prolog.exec(text); match; match = prolog.exec(text)) text = text.slice(match[0].length);
  return /^\s*<svg[\s>/]/i.test(text);
}

function textKind(bytes: Buffer): string {
  if (isSvg(bytes)) return 'svg';
  const head = bytes.subarray(0, 4096);
  if (!isText(head)) return 'unknown';
  const text = head
    .toString('utf8')
    .replace(/^\uFEFF/, '')
    .trimStart()
    .toLowerCase();
  if (text.startsWith('<') && /<(!doctype html|html|head|body|title|meta|script|div|p)[\s>]/.test(text)) return 'html';
  if (text.startsWith('<')) return 'xml';
  if (text.startsWith('{') || text.startsWith('[')) return 'json';
  return 'text';
}

/** No control characters other than tab, CR, LF and form feed: a text file, not binary data. */
function isText(bytes: Buffer): boolean {
  return !bytes.some((b) => b < 0x20 && b !== 0x09 && b !== 0x0a && b !== 0x0d && b !== 0x0c);
}
