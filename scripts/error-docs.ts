import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { errorReferenceMarkdown } from '../core/src/http/error-reference.ts';

/**
 * `npm run docs:errors`: writes docs/errors.md from core/src/http/error-catalogue.ts (the same
 * catalogue the service serves at /api/reseller/v1/docs/errors). `--check` changes nothing and
 * fails when the file is out of date (a test runs it).
 */
export const ERRORS_MD = path.resolve(import.meta.dirname, '../docs/errors.md');

if (import.meta.main) {
  const wanted = errorReferenceMarkdown();
  if (process.argv.includes('--check')) {
    const current = readFileSync(ERRORS_MD, 'utf8');
    if (current !== wanted) {
      console.error('docs/errors.md is out of date: run npm run docs:errors');
      process.exit(1);
    }
  } else {
    writeFileSync(ERRORS_MD, wanted);
    console.log(`wrote ${path.relative(process.cwd(), ERRORS_MD)}`);
  }
}
