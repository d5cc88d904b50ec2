import { readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';

/**
 * After `tsc`: relative imports in the emitted declarations name `.js` files, as the emitted
 * JavaScript does (tsc rewrites `.ts` specifiers in JavaScript only; a consumer's compiler
 * would look for `.ts` files the package does not ship).
 */
const dist = path.resolve(import.meta.dirname, '../dist');
for (const entry of await readdir(dist, { recursive: true })) {
  if (!entry.endsWith('.d.ts')) continue;
  const file = path.join(dist, entry);
  const text = await readFile(file, 'utf8');
  const fixed = text.replace(/(from\s+|import\()(['"])(\.{1,2}\/[^'"]+)\.ts\2/g, '$1$2$3.js$2');
  if (fixed !== text) await writeFile(file, fixed);
}
