import { mkdtempSync, rmSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { configSchema } from '../core/src/config.ts';
import { API_BASE, composeService, type Overrides } from '../core/src/composition.ts';
import { SecretBox } from '../core/src/infra/crypto.ts';
import { silentLogger } from '../core/src/infra/logger.ts';
import { generateTypes } from '../packages/sdk/scripts/generate-types.ts';

/**
 * `npm run sdk:generate`: the SDK's copy of the service's OpenAPI document
 * (packages/sdk/openapi.json) and the types generated from it (packages/sdk/src/generated/api.ts).
 * `--check` writes nothing and fails when either is out of date (a test runs it).
 */
export const SDK_DIR = path.resolve(import.meta.dirname, '../packages/sdk');
export const DOCUMENT_FILE = path.join(SDK_DIR, 'openapi.json');
export const TYPES_FILE = path.join(SDK_DIR, 'src/generated/api.ts');

/**
 * The document the service serves at /api/reseller/v1/openapi.json, from a throwaway embedded
 * instance with the defaults of `npm start` (every connector, none configured), so the result
 * does not depend on this machine's environment.
 */
export async function serviceDocument(
  overrides: Pick<Overrides, 'pgliteTemplate'> = {},
): Promise<Record<string, unknown>> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'print-api-openapi-'));
  const config = configSchema.parse({
    NODE_ENV: 'test',
    HOST: '127.0.0.1',
    PORT: '0',
    DATA_DIR: dataDir,
    ADMIN_TOKEN: 'adm_openapi_document_only_000000',
    ENCRYPTION_KEY: SecretBox.generateKey(),
    PUBLIC_URL: 'http://localhost:3000',
    PRODUCTION_SIMULATOR: 'off',
    LOG_LEVEL: 'error',
  });
  const service = await composeService(config, { logger: silentLogger(), connectorEnv: () => ({}), ...overrides });
  try {
    const server = await service.listen();
    const res = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}${API_BASE}/openapi.json`, {
      headers: { 'user-agent': 'print-api-sdk-generator/1.0' },
    });
    if (!res.ok) throw new Error(`openapi.json answered ${res.status}`);
    return (await res.json()) as Record<string, unknown>;
  } finally {
    await service.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** The two files as they should be (a test passes its migrated database template: seconds sooner). */
export async function sdkFiles(
  overrides: Pick<Overrides, 'pgliteTemplate'> = {},
): Promise<{ document: string; types: string }> {
  const document = `${JSON.stringify(await serviceDocument(overrides), null, 2)}\n`;
  return { document, types: await generateTypes(document) };
}

async function main(check: boolean): Promise<number> {
  const wanted = await sdkFiles();
  const current = await Promise.all([
    readFile(DOCUMENT_FILE, 'utf8').catch(() => ''),
    readFile(TYPES_FILE, 'utf8').catch(() => ''),
  ]);
  if (check) {
    const stale = [current[0] !== wanted.document && DOCUMENT_FILE, current[1] !== wanted.types && TYPES_FILE].filter(
      Boolean,
    );
    if (stale.length) process.stderr.write(`Out of date: ${stale.join(', ')}. Run npm run sdk:generate.\n`);
    return stale.length ? 1 : 0;
  }
  await writeFile(DOCUMENT_FILE, wanted.document);
  await writeFile(TYPES_FILE, wanted.types);
  process.stdout.write(`Wrote ${DOCUMENT_FILE} and ${TYPES_FILE}\n`);
  return 0;
}

if (import.meta.main) process.exitCode = await main(process.argv.includes('--check'));
