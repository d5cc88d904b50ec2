import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { DETAIL_CATALOGUE, ERROR_CATALOGUE } from '../../src/http/error-catalogue.ts';
import { errorReferenceMarkdown } from '../../src/http/error-reference.ts';

const ROOT = path.resolve(import.meta.dirname, '../../..');
const SRC = path.join(ROOT, 'core/src');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sourceFiles(path.join(dir, e.name)) : e.name.endsWith('.ts') ? [path.join(dir, e.name)] : [],
  );
}

/** Every error code core/src can put in an answer, as written in its source: thrown, mapped or documented. */
function codesInSource(): Map<string, string> {
  const found = new Map<string, string>();
  const add = (code: string, file: string) => found.set(code, path.relative(ROOT, file));
  // The catalogue itself is what is checked.
  for (const file of sourceFiles(SRC).filter(
    (f) => !f.endsWith('error-catalogue.ts') && !f.includes('/error-catalogue/'),
  )) {
    const text = readFileSync(file, 'utf8');
    for (const m of text.matchAll(/new ApiError\(\s*\d{3},\s*'([^']+)'/g)) add(m[1]!, file);
    // The domain's refusals (core/src/modules/refusal.ts): the code is the first argument.
    for (const m of text.matchAll(/new Refusal\(\s*'([^']+)'/g)) add(m[1]!, file);
    for (const m of text.matchAll(/\b(?:rejected|wrongState)\(\s*'([^']+)'/g)) add(m[1]!, file);
    for (const m of text.matchAll(/\bcode: '([^']+)'/g)) add(m[1]!, file);
    // Codes chosen by an expression inside an ApiError (`flow === 'install' ? 'store_install_rejected' : …`) and status
    // maps.
    for (const line of text.split('\n').filter((l) => l.includes('new ApiError(') || l.includes('new Refusal(')))
      for (const m of line.matchAll(/'([a-z0-9]+_[a-z0-9_]+)'/g)) add(m[1]!, file);
    for (const m of text.matchAll(/\b\d{3}: '([a-z]+_[a-z_]+)'/g)) add(m[1]!, file);
    if (/\binvalidRequest\(/.test(text)) add('invalid_request', file);
    if (/\bnotFound\(/.test(text)) add('not_found', file);
  }
  return found;
}

describe('the error reference', () => {
  const documented = new Set([
    ...ERROR_CATALOGUE.map((e) => e.code),
    ...DETAIL_CATALOGUE.flatMap((d) => d.code.split(', ')),
  ]);

  it('lists every error code thrown in core/src (and the CDN’s 1010)', () => {
    const missing = [...codesInSource()]
      .filter(([code]) => !documented.has(code))
      .map(([code, file]) => `${code} (${file})`);
    expect(missing).to.deep.equal([]);
    expect(documented.has('1010')).to.equal(true);
    expect(codesInSource().size).to.be.greaterThan(50);
  });

  it('finds the codes of refusals thrown by the domain (new Refusal, rejected, wrongState), each with its one status', () => {
    const found = codesInSource();
    // One of each way a module refuses: its own class, a rule broken, a state that does not allow it.
    for (const code of [
      'store_rate_limited',
      'unknown_install_link',
      'invalid_options',
      'card_rejected',
      'sync_in_progress',
      'order_not_awaiting_file',
    ]) {
      expect(found.get(code), code).to.match(/^core\/src\/modules\//);
    }
    // A domain refusal's status is its code's, so a code thrown by the domain answers exactly one.
    for (const [code, file] of found) {
      const entry = ERROR_CATALOGUE.find((e) => e.code === code);
      if (entry && file.startsWith('core/src/modules/') && !file.endsWith('connector-errors.ts'))
        expect(entry.status, code).to.have.length(1);
    }
  });

  it('gives each code a status, a meaning, what to do and an example message, once', () => {
    const codes = ERROR_CATALOGUE.map((e) => e.code);
    expect(new Set(codes).size).to.equal(codes.length);
    for (const e of ERROR_CATALOGUE) {
      expect(e.status.length, e.code).to.be.greaterThan(0);
      for (const s of e.status) expect(s, e.code).to.be.within(400, 599);
      expect(e.meaning, e.code).to.not.equal('');
      expect(e.action, e.code).to.not.equal('');
      expect(e.example, e.code).to.not.equal('');
    }
    expect(ERROR_CATALOGUE.find((e) => e.code === '1010')!.action)
      .to.include('User-Agent')
      .and.include('python-requests');
  });

  it('is in the repository as docs/errors.md, up to date (npm run docs:errors)', async () => {
    expect(readFileSync(path.join(ROOT, 'docs/errors.md'), 'utf8')).to.equal(errorReferenceMarkdown());
    await promisify(execFile)(process.execPath, [path.join(ROOT, 'scripts/error-docs.ts'), '--check'], { cwd: ROOT });
    const md = errorReferenceMarkdown();
    for (const code of documented) expect(md, code).to.include(`\`${code}\``);
  });
});
