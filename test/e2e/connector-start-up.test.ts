import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startServiceProcess } from './processes.ts';
import { scaled } from '../../core/test/helpers/wait.ts';

const root = path.resolve(import.meta.dirname, '../..');

/** The environment of the test run without any connector setting (so `npm start` as it comes). */
function withoutConnectorSettings(): Record<string, string> {
  return Object.fromEntries(
    Object.entries(process.env).flatMap(([k, v]) => (k.startsWith('CONNECTOR') || v === undefined ? [] : [[k, v]])),
  );
}

describe('start-up with the connectors’ CONNECTOR_* settings (spawned server)', function () {
  this.timeout(scaled(150_000));
  let dataDir = '';
  before(() => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'print-api-connectors-'));
  });
  after(() => rmSync(dataDir, { recursive: true, force: true }));

  it('starts with none set: every installed connector loads (app secrets are needed only by the flows that use them)', async () => {
    const env = {
      ...withoutConnectorSettings(),
      NODE_ENV: 'development',
      DATA_DIR: dataDir,
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      DATABASE_URL: '',
      REDIS_URL: '',
    };
    const proc = await startServiceProcess(env);
    try {
      const doc = (await (await fetch(`http://127.0.0.1:${proc.port}/api/reseller/v1/openapi.json`)).json()) as any;
      // Each platform's branch is a named component.
      const branches = doc.paths['/stores'].post.requestBody.content['application/json'].schema.oneOf as Array<{
        title?: string;
        $ref?: string;
      }>;
      const platforms = branches.map(
        (b) => (b.$ref ? doc.components.schemas[b.$ref.replace('#/components/schemas/', '')] : b).title,
      );
      expect(platforms).to.include.members(['SHOPIFY', 'WOOCOMMERCE']);
    } finally {
      expect(await proc.stop()).to.equal(0);
    }
  });

  it('stops with exit code 78 on a wrong setting, naming the variable', async () => {
    const child = spawn(process.execPath, ['core/src/main.ts'], {
      cwd: root,
      env: {
        ...withoutConnectorSettings(),
        DATA_DIR: dataDir,
        PORT: '0',
        CONNECTOR_SHOPIFY_API_URL: 'http://shopify.internal/{shop}',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    expect(code).to.equal(78);
    expect(stderr).to.match(/^ {2}CONNECTOR_SHOPIFY_API_URL must be an https URL/m);
  });
});
