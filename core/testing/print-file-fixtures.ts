import { crc32, deflateSync } from 'node:zlib';

/**
 * Real, minimal files of every kind the print-file check meets, built byte by byte so
 * each is what its format says (a valid PDF with its xref table, a decodable PNG and JPEG)
 * rather than a magic number followed by noise.
 */

/** A one-page A6 PDF with a correct cross-reference table. */
export function tinyPdf(): Buffer {
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 298 420] >>',
  ];
  let pdf = '%PDF-1.4\n';
  const offsets = objects.map((body, i) => {
    const at = pdf.length;
    pdf += `${i + 1} 0 obj\n${body}\nendobj\n`;
    return at;
  });
  const xref = pdf.length;
  pdf += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const at of offsets) pdf += `${String(at).padStart(10, '0')} 00000 n \n`;
  pdf += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(pdf, 'latin1');
}

/** A 1×1 red RGB PNG. */
export function tinyPng(): Buffer {
  const chunk = (type: string, data: Buffer): Buffer => {
    const typed = Buffer.concat([Buffer.from(type, 'latin1'), data]);
    const out = Buffer.alloc(typed.length + 8);
    out.writeUInt32BE(data.length, 0);
    typed.copy(out, 4);
    out.writeUInt32BE(crc32(typed), typed.length + 4);
    return out;
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(1, 0); // width
  header.writeUInt32BE(1, 4); // height
  header.set([8, 2, 0, 0, 0], 8); // 8-bit truecolour, deflate, no filter method, no interlace
  const scanline = Buffer.from([0, 0xff, 0x00, 0x00]); // filter byte, then R G B
  return Buffer.concat([
    Buffer.from('89504e470d0a1a0a', 'hex'),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(scanline)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

/**
 * An 8×8 mid-grey baseline JPEG: one block whose only coefficient is a zero DC difference.
 * Each Huffman table has a single 1-bit code, so the entropy-coded data is the bits `0`
 * (DC category 0) and `0` (end of block), padded with ones: 0x3f.
 */
export function tinyJpeg(): Buffer {
  const segment = (marker: number, body: number[]): number[] => [
    0xff,
    marker,
    (body.length + 2) >> 8,
    (body.length + 2) & 0xff,
    ...body,
  ];
  const oneCodeTable = (classAndId: number): number[] => [classAndId, 1, ...new Array<number>(15).fill(0), 0x00];
  return Buffer.from([
    0xff,
    0xd8, // SOI
    ...segment(0xe0, [...Buffer.from('JFIF\0', 'latin1'), 1, 1, 0, 0, 1, 0, 1, 0, 0]),
    ...segment(0xdb, [0x00, ...new Array<number>(64).fill(1)]), // quantisation table 0, all ones
    ...segment(0xc0, [8, 0, 8, 0, 8, 1, 1, 0x11, 0]), // baseline, 8-bit, 8×8, one component
    ...segment(0xc4, oneCodeTable(0x00)), // DC table 0
    ...segment(0xc4, oneCodeTable(0x10)), // AC table 0
    ...segment(0xda, [1, 1, 0x00, 0, 63, 0]), // start of scan
    0x3f,
    0xff,
    0xd9, // EOI
  ]);
}

/** A Windows icon holding one 1×1 PNG image (the format since Windows Vista). */
export function tinyIco(): Buffer {
  const image = tinyPng();
  const header = Buffer.alloc(22);
  header.writeUInt16LE(0, 0); // reserved
  header.writeUInt16LE(1, 2); // type: icon
  header.writeUInt16LE(1, 4); // one image
  header.set([1, 1, 0, 0], 6); // 1×1, no palette, reserved
  header.writeUInt16LE(1, 10); // colour planes
  header.writeUInt16LE(32, 12); // bits per pixel
  header.writeUInt32LE(image.length, 14);
  header.writeUInt32LE(22, 18); // image offset
  return Buffer.concat([header, image]);
}

export const tinyHtml = (): Buffer =>
  Buffer.from(
    '<!DOCTYPE html>\n<html><head><title>File not found</title></head><body><h1>Sorry, that file is gone</h1></body></html>\n',
  );

export const tinySvg = (): Buffer =>
  Buffer.from(
    '<?xml version="1.0" encoding="UTF-8"?>\n<!-- business card -->\n<svg xmlns="http://www.w3.org/2000/svg" width="85mm" height="55mm" viewBox="0 0 85 55"><rect width="85" height="55" fill="#c00"/></svg>\n',
  );

export const tinyEps = (): Buffer =>
  Buffer.from(
    '%!PS-Adobe-3.0 EPSF-3.0\n%%BoundingBox: 0 0 241 156\n%%EndComments\nnewpath 10 10 moveto 231 146 lineto stroke\nshowpage\n%%EOF\n',
  );

export const tinyPostScript = (): Buffer =>
  Buffer.from(
    '%!PS-Adobe-3.0\n%%Pages: 1\n%%EndComments\n/Helvetica findfont 12 scalefont setfont\n72 720 moveto (Proof) show\nshowpage\n%%EOF\n',
  );

/** An HTML page that happens to contain an inline SVG: still not an SVG file. */
export const htmlWithInlineSvg = (): Buffer =>
  Buffer.from('<!DOCTYPE html><html><body><svg width="10" height="10"></svg></body></html>');
