import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

/**
 * A golden snapshot: `actual` (JSON-able) must equal the file at `path`, the normalised store
 * orders a connector's mapper made of a platform's published samples. `UPDATE_GOLDEN=1` writes
 * the file instead (review the diff: it is the mapper's behaviour on the platform's own data).
 */
export function assertGolden(path: string, actual: unknown): void {
  const text = `${JSON.stringify(actual, null, 2)}\n`;
  if (process.env.UPDATE_GOLDEN === '1' || !existsSync(path)) {
    if (process.env.UPDATE_GOLDEN !== '1')
      assert.fail(`no golden snapshot at ${path}: run with UPDATE_GOLDEN=1 and review it`);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, text);
    return;
  }
  assert.deepEqual(
    JSON.parse(text),
    JSON.parse(readFileSync(path, 'utf8')),
    `golden snapshot ${path} (UPDATE_GOLDEN=1 rewrites it; review the diff)`,
  );
}
