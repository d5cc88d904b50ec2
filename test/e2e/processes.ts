import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { scaled } from '../../core/test/helpers/wait.ts';

const root = path.resolve(import.meta.dirname, '../..');

export interface RunningProcess {
  child: ChildProcess;
  port: number | undefined;
  output: () => string;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** Spawns `node core/src/main.ts` with `env` and waits until it listens (api) or reports started (worker). */
/**
 * How long a spawned service may take to say it listens before it is killed as hung. A first
 * start on a new embedded database (initdb and the migrations in WebAssembly) takes a few
 * seconds on an idle machine and several times that on a loaded CI one: a deadline, not a target (grown by
 * the run's time scale).
 */
const START_DEADLINE_MS = scaled(60_000);

export function startServiceProcess(env: Record<string, string>): Promise<RunningProcess> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['core/src/main.ts'], {
      cwd: root,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let settled = false;
    const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
    const onData = (chunk: Buffer) => {
      out += chunk.toString();
      if (settled) return;
      const port =
        /listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(out)?.[1] ??
        /"api":"http:\/\/127\.0\.0\.1:(\d+)/.exec(out)?.[1];
      const worker = /"message":"worker started"/.test(out);
      if (port || worker) {
        settled = true;
        resolve({
          child,
          port: port ? Number(port) : undefined,
          output: () => out,
          stop: async (signal = 'SIGTERM') => {
            if (child.exitCode === null) child.kill(signal);
            return exited;
          },
        });
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.on('exit', (code) => {
      if (!settled) reject(new Error(`the service exited with ${code} before it was ready:\n${out}`));
    });
    setTimeout(() => {
      if (!settled) {
        child.kill('SIGKILL');
        reject(new Error(`the service did not start within ${START_DEADLINE_MS / 1000} s:\n${out}`));
      }
    }, START_DEADLINE_MS);
  });
}
