import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { SecretBox } from './crypto.ts';
import { randomToken } from './ids.ts';

export interface LocalSecrets {
  adminToken: string;
  encryptionKey: string;
  /** True when the admin token was generated here (main prints it in development). */
  generatedAdminToken: boolean;
}

/**
 * Development defaults: an admin token and an encryption key generated once into
 * `DATA_DIR/secrets.json` (mode 0600), so a restart keeps them. Explicit values always win.
 */
export function resolveLocalSecrets(
  dataDir: string,
  explicit: { adminToken?: string | undefined; encryptionKey?: string | undefined },
): LocalSecrets {
  if (explicit.adminToken && explicit.encryptionKey) {
    return { adminToken: explicit.adminToken, encryptionKey: explicit.encryptionKey, generatedAdminToken: false };
  }
  const file = path.resolve(dataDir, 'secrets.json');
  mkdirSync(path.dirname(file), { recursive: true });
  const fresh = { adminToken: `adm_${randomToken(24)}`, encryptionKey: SecretBox.generateKey() };
  try {
    writeFileSync(file, JSON.stringify(fresh, null, 2), { flag: 'wx', mode: 0o600 });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
  const stored = JSON.parse(readFileSync(file, 'utf8')) as { adminToken: string; encryptionKey: string };
  return {
    adminToken: explicit.adminToken ?? stored.adminToken,
    encryptionKey: explicit.encryptionKey ?? stored.encryptionKey,
    generatedAdminToken: !explicit.adminToken,
  };
}
