import type { RequestHandler } from 'express';

const SIZE = 16;

/**
 * A 16x16 icon (the pages' accent blue, corners cut), built as an ICO in memory: browsers ask
 * every site for `/favicon.ico`, and a 404 for it is noise in the console and in the logs. No
 * file to ship, nothing fetched from elsewhere.
 */
function icon(): Buffer {
  const pixels = Buffer.alloc(SIZE * SIZE * 4);
  for (let y = 0; y < SIZE; y++) {
    for (let x = 0; x < SIZE; x++) {
      const corner =
        (x < 2 || x > SIZE - 3) &&
        (y < 2 || y > SIZE - 3) &&
        !((x === 1 || x === SIZE - 2) && (y === 1 || y === SIZE - 2));
      // BGRA, bottom-up rows (BMP order).
      pixels.set(corner ? [0, 0, 0, 0] : [0xad, 0x5c, 0x0b, 0xff], ((SIZE - 1 - y) * SIZE + x) * 4);
    }
  }
  const mask = Buffer.alloc(SIZE * 4); // 1 bit per pixel, rows padded to 4 bytes; alpha decides
  const info = Buffer.alloc(40);
  info.writeUInt32LE(40, 0);
  info.writeInt32LE(SIZE, 4);
  info.writeInt32LE(SIZE * 2, 8); // an ICO's bitmap counts the mask's rows too
  info.writeUInt16LE(1, 12);
  info.writeUInt16LE(32, 14);
  info.writeUInt32LE(pixels.length + mask.length, 20);
  const image = Buffer.concat([info, pixels, mask]);
  const header = Buffer.alloc(6 + 16);
  header.writeUInt16LE(1, 2); // type: icon
  header.writeUInt16LE(1, 4); // one image
  header.writeUInt8(SIZE, 6);
  header.writeUInt8(SIZE, 7);
  header.writeUInt16LE(1, 10);
  header.writeUInt16LE(32, 12);
  header.writeUInt32LE(image.length, 14);
  header.writeUInt32LE(header.length, 18);
  return Buffer.concat([header, image]);
}

const ICON = icon();

/** `GET /favicon.ico`, for every page of the service (dashboard, console, docs). */
export const favicon: RequestHandler = (_req, res) => {
  res.set({ 'Content-Type': 'image/x-icon', 'Cache-Control': 'public, max-age=86400' }).send(ICON);
};
