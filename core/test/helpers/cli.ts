import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { runCli } from '../../src/cli/main.ts';

/** The CLI's entry point, as `npm run admin` runs it. */
export const CLI = fileURLToPath(new URL('../../src/cli.ts', import.meta.url));

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * One CLI command run in this process (what `npm run admin -- …` runs after Node started), with
 * `env` as its whole environment (NODE_ENV=test added): its exit code, stdout and stderr. The
 * binary itself is tested by `cliProcess`, a few times: a node process per command costs a second.
 */
export async function runCliHere(args: string[], env: Record<string, string> = {}): Promise<CliRun> {
  let stdout = '';
  let stderr = '';
  const code = await runCli(args, {
    stdout: (text) => void (stdout += text),
    stderr: (text) => void (stderr += text),
    env: { NODE_ENV: 'test', ...env },
  });
  return { code, stdout, stderr };
}

/** One CLI command as a node process of its own (`node core/src/cli.ts …`); never throws. */
export async function cliProcess(args: string[], env: Record<string, string> = {}): Promise<CliRun> {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [CLI, ...args], {
      env: { PATH: process.env.PATH, NODE_ENV: 'test', ...env },
    });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}
