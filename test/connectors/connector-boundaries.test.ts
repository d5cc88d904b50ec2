import { expect } from 'chai';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));

function tsFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    if (name === 'node_modules') return [];
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) return tsFiles(full);
    return name.endsWith('.ts') ? [full] : [];
  });
}

/**
 * A connector is one folder: it reaches core only through its public packages (the kit, and
 * `@print-api/core/testing` in tests), never through core's source or test files, so a third
 * party can write one the same way.
 */
describe('connector folders', () => {
  it('import nothing from core/src or core/test, in their source or their tests', () => {
    const folders = [
      ...readdirSync(path.join(root, 'connectors')).map((c) => path.join(root, 'connectors', c)),
      path.join(root, 'test/reference-connector'),
    ];
    const offending = folders.flatMap(tsFiles).flatMap((file) =>
      readFileSync(file, 'utf8')
        .split('\n')
        .filter(
          (line) =>
            /from\s+['"][^'"]*core\/(src|test)\//.test(line) || /import\(\s*['"][^'"]*core\/(src|test)\//.test(line),
        )
        .map((line) => `${path.relative(root, file)}: ${line.trim()}`),
    );
    expect(offending).to.deep.equal([]);
  });
});
