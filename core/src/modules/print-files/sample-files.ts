import type { Catalog } from '../catalog/catalog.ts';
import type { Product } from '../catalog/catalog-schema.ts';

/** Where the sample print files are served, under the API's base path. */
export const SAMPLE_FILES_PATH = '/api/reseller/v1/sample-files';

/** One sample print file: a PDF of one of a product's formats, trim size plus bleed. */
export interface SampleFile {
  /** The format: the value of the product's size option, or `standard` for a product of one size. */
  format: string;
  trimSizeMm: { width: number; height: number };
  bleedMm: number;
  /** The page (MediaBox): the trim size with the bleed on every side. */
  pageSizeMm: { width: number; height: number };
  url: string;
}

const MM_TO_PT = 72 / 25.4;
const pt = (mm: number): string => (Math.round(mm * MM_TO_PT * 100) / 100).toFixed(2);

/**
 * A valid one-page PDF (1.4) of the given trim size with its bleed: MediaBox and BleedBox are the
 * trim size plus the bleed on every side, TrimBox the trim size. The page shows a frame at the
 * trim edge and a label. Deterministic: the same arguments give the same bytes.
 */
export function samplePdf(trim: { width: number; height: number }, bleedMm: number, label: string): Buffer {
  const w = trim.width + 2 * bleedMm;
  const h = trim.height + 2 * bleedMm;
  const text = label.replace(/[\\()]/g, (c) => `\\${c}`).replace(/[^\x20-\x7e]/g, '?');
  const fontSize = Math.max(4, Math.min(36, (Math.min(trim.width, trim.height) * MM_TO_PT) / 12));
  const content = [
    '0.8 0.1 0.5 RG 1 w',
    `${pt(bleedMm)} ${pt(bleedMm)} ${pt(trim.width)} ${pt(trim.height)} re S`,
    `BT /F1 ${fontSize.toFixed(1)} Tf ${pt(bleedMm + trim.width * 0.06)} ${pt(bleedMm + trim.height / 2)} Td (${text}) Tj ET`,
  ].join('\n');
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 ${pt(w)} ${pt(h)}] /BleedBox [0 0 ${pt(w)} ${pt(h)}] ` +
      `/TrimBox [${pt(bleedMm)} ${pt(bleedMm)} ${pt(bleedMm + trim.width)} ${pt(bleedMm + trim.height)}] ` +
      '/Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>',
    `<< /Length ${Buffer.byteLength(content, 'latin1')} >>\nstream\n${content}\nendstream`,
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
    `<< /Title (${text}) /Producer (print-api sample files) >>`,
  ];
  let out = '%PDF-1.4\n%\xe2\xe3\xcf\xd3\n';
  const offsets: number[] = [];
  objects.forEach((body, i) => {
    offsets.push(Buffer.byteLength(out, 'latin1'));
    out += `${i + 1} 0 obj\n${body}\nendobj\n`;
  });
  const xref = Buffer.byteLength(out, 'latin1');
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const offset of offsets) out += `${String(offset).padStart(10, '0')} 00000 n \n`;
  out += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R /Info 6 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(out, 'latin1');
}

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);
const SAMPLE_PATH = /^\/api\/reseller\/v1\/sample-files\/([a-z0-9-]{1,100})\/([A-Za-z0-9._-]{1,50})\.pdf$/;

/**
 * The sample print files the service serves itself: one PDF per product format, at its trim
 * size with bleed, so a sandbox order (a `prk_test_` key) can run to DELIVERED with no file host
 * and no internet. Print-file checks of a test key resolve these URLs here, never over the
 * network; for a live key they are no print files at all.
 */
export class SampleFiles {
  readonly #catalog: Catalog;
  readonly #origin: () => string;
  readonly #bytes = new Map<string, Buffer>();

  /** `origin`: where clients reach the service (PUBLIC_URL, or the address it listens on). */
  constructor(deps: { catalog: Catalog; origin: () => string }) {
    this.#catalog = deps.catalog;
    this.#origin = deps.origin;
  }

  /** The product's sample files, one per format (each value of its size option, else `standard`). */
  list(product: Product): SampleFile[] {
    const req = product.fileRequirements;
    const formats = req.trimSizeMmByOption
      ? Object.entries(req.trimSizeMmByOption.values)
      : [['standard', req.trimSizeMm] as const];
    return formats.map(([format, trim]) => ({
      format,
      trimSizeMm: { width: trim.width, height: trim.height },
      bleedMm: req.bleedMm,
      pageSizeMm: { width: trim.width + 2 * req.bleedMm, height: trim.height + 2 * req.bleedMm },
      url: `${new URL(this.#origin()).origin}${SAMPLE_FILES_PATH}/${product.id}/${encodeURIComponent(format)}.pdf`,
    }));
  }

  /** The bytes of a sample file by its path (`/api/reseller/v1/sample-files/posters/a2.pdf`), or undefined. */
  bytesAt(pathname: string): Buffer | undefined {
    const m = SAMPLE_PATH.exec(pathname);
    if (!m) return undefined;
    const [, productId, format] = m as unknown as [string, string, string];
    const product = this.#catalog.products.find((p) => p.id === productId);
    if (!product) return undefined;
    const req = product.fileRequirements;
    const sizes = req.trimSizeMmByOption?.values;
    const trim = sizes
      ? Object.hasOwn(sizes, format)
        ? sizes[format]
        : undefined
      : format === 'standard'
        ? req.trimSizeMm
        : undefined;
    if (!trim) return undefined;
    const key = `${productId}/${format}`;
    let bytes = this.#bytes.get(key);
    if (!bytes) {
      bytes = samplePdf(
        trim,
        req.bleedMm,
        `Sample print file: ${product.names.en}, ${format}, ${trim.width} x ${trim.height} mm`,
      );
      this.#bytes.set(key, bytes);
    }
    return bytes;
  }

  /**
   * True when the URL names a sample file of this service: its host is the service's public host
   * or a loopback name (any port or scheme: `npm start` serves plain http on 127.0.0.1) and its
   * path a sample file's. Nothing is fetched, so the host only says "this service".
   */
  isSampleUrl(url: string): boolean {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      return false;
    }
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return false;
    const ours = parsed.hostname === new URL(this.#origin()).hostname || LOOPBACK.has(parsed.hostname);
    if (!ours || parsed.username || parsed.password || parsed.search) return false;
    return this.bytesAt(parsed.pathname) !== undefined;
  }

  /** The bytes of a sample file URL (see isSampleUrl), or undefined. */
  resolve(url: string): Buffer | undefined {
    return this.isSampleUrl(url) ? this.bytesAt(new URL(url).pathname) : undefined;
  }
}
