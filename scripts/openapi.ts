import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Express } from 'express';
import { configSchema } from '../core/src/config.ts';
import { composeService } from '../core/src/composition.ts';
import { SecretBox } from '../core/src/infra/crypto.ts';
import { silentLogger } from '../core/src/infra/logger.ts';

/**
 * `npm run docs:openapi [-- out.json]`: writes the reseller API's OpenAPI document (the one
 * `/api/reseller/v1/openapi.json` serves) without starting a server: a throwaway embedded
 * database, no workers. `npm run lint:openapi` lints it with Redocly's recommended rules.
 */
export async function generateOpenApi(publicUrl = 'https://print-api.example'): Promise<Record<string, unknown>> {
  return withComposedApp((app) => app.locals.apiOpenApi as Record<string, unknown>, publicUrl);
}

/** What `read` takes from the composed service's express app (its locals: route tables, the OpenAPI document). */
export async function withComposedApp<T>(
  read: (app: Express) => T,
  publicUrl = 'https://print-api.example',
): Promise<T> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'print-api-openapi-'));
  try {
    const config = configSchema.parse({
      NODE_ENV: 'test',
      DATA_DIR: dataDir,
      ADMIN_TOKEN: 'adm_openapi_generation_only',
      ENCRYPTION_KEY: SecretBox.generateKey(),
      PUBLIC_URL: publicUrl,
      PRODUCTION_SIMULATOR: 'off',
    });
    const service = await composeService(config, { logger: silentLogger() });
    try {
      return read(service.app);
    } finally {
      await service.close();
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

if (import.meta.main) {
  const out = process.argv[2] ?? 'openapi.json';
  writeFileSync(out, `${JSON.stringify(await generateOpenApi(), null, 2)}\n`);
  console.log(`wrote ${out}`);
}
