import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, type WriteStream } from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '../..');

export type Role = 'api' | 'worker';

/** How one process instance ended. `expected`: the harness stopped it (a kill it meant, or the final stop). */
export interface ExitRecord {
  name: string;
  pid: number;
  code: number | null;
  signal: NodeJS.Signals | null;
  expected: boolean;
  /** The last of what it printed (its log file has everything). */
  tail: string;
  logFile: string;
}

interface Instance {
  name: string;
  role: Role;
  child: ChildProcess;
  port: number | undefined;
  expectExit: boolean;
  exited: Promise<ExitRecord>;
  tail: () => string;
}

const READY_TIMEOUT_MS = 90_000;
const STOP_TIMEOUT_MS = 20_000;

/**
 * Runs service processes (`node core/src/main.ts`, ROLE=api|worker) the way a supervisor would,
 * and is the only one that may stop them: every exit it did not cause is recorded as a crash.
 * Each process leads its own process group, so a stop leaves nothing behind.
 */
export class ProcessSupervisor {
  readonly #env: Record<string, string>;
  readonly #logDir: string;
  readonly #current = new Map<string, Instance>();
  readonly #exits: ExitRecord[] = [];
  readonly #logs: WriteStream[] = [];
  #starts = 0;

  constructor(deps: { env: Record<string, string>; logDir: string }) {
    this.#env = deps.env;
    this.#logDir = deps.logDir;
  }

  /** Starts `name` (or starts it again) and waits until it listens (api) or reports started (worker). */
  /** Starts `name` and resolves once it serves (api) or runs (worker), with how long that took (ms). */
  async start(name: string, role: Role): Promise<number> {
    const startedAt = Date.now();
    const previous = this.#current.get(name);
    if (previous && previous.child.exitCode === null && previous.child.signalCode === null)
      throw new Error(`${name} is still running`);
    const logFile = path.join(this.#logDir, `${name}.${++this.#starts}.log`);
    const log = createWriteStream(logFile);
    this.#logs.push(log);
    const child = spawn(process.execPath, ['core/src/main.ts'], {
      cwd: root,
      env: { ...process.env, ...this.#env, ROLE: role },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    let tail = '';
    let out = '';
    let port: number | undefined;
    let ready = false;
    let onReady: (() => void) | undefined;
    const onData = (chunk: Buffer) => {
      log.write(chunk);
      tail = (tail + chunk.toString()).slice(-6000);
      if (ready) return;
      out += chunk.toString();
      const announced = /"api":"http:\/\/127\.0\.0\.1:(\d+)/.exec(out)?.[1];
      if (role === 'api' && announced) port = Number(announced);
      if ((role === 'api' && announced) || (role === 'worker' && /"message":"worker started"/.test(out))) {
        ready = true;
        out = '';
        onReady?.();
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    const instance: Instance = {
      name,
      role,
      child,
      port: undefined,
      expectExit: false,
      tail: () => tail,
      exited: new Promise<ExitRecord>((resolve) => {
        child.on('exit', (code, signal) => {
          const record: ExitRecord = {
            name,
            pid: child.pid ?? 0,
            code,
            signal,
            expected: instance.expectExit,
            tail,
            logFile,
          };
          this.#exits.push(record);
          resolve(record);
        });
      }),
    };
    this.#current.set(name, instance);
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`${name} (${role}) was not ready within ${READY_TIMEOUT_MS} ms:\n${tail}`)),
        READY_TIMEOUT_MS,
      );
      onReady = () => {
        clearTimeout(timer);
        resolve();
      };
      void instance.exited.then((r) => {
        clearTimeout(timer);
        reject(new Error(`${name} (${role}) exited with ${r.code ?? r.signal} before it was ready:\n${r.tail}`));
      });
    }).catch(async (err: Error) => {
      instance.expectExit = true;
      this.#signal(instance, 'SIGKILL');
      await instance.exited;
      throw err;
    });
    instance.port = port;
    return Date.now() - startedAt;
  }

  /** Kills `name` with `signal` as an outage would, and waits for it to be gone (an expected exit). */
  async kill(name: string, signal: NodeJS.Signals = 'SIGKILL'): Promise<ExitRecord> {
    const instance = this.#instance(name);
    instance.expectExit = true;
    this.#signal(instance, signal);
    return instance.exited;
  }

  /**
   * Starts again every process whose current instance exited without the harness stopping it (what a supervisor does).
   */
  async reviveCrashed(): Promise<string[]> {
    const crashed = [...this.#current.values()].filter((i) => !this.#alive(i) && !i.expectExit);
    for (const i of crashed) await this.start(i.name, i.role);
    return crashed.map((i) => i.name);
  }

  /** Exits the harness did not cause, in order. */
  crashes(): ExitRecord[] {
    return this.#exits.filter((e) => !e.expected);
  }

  /** Base URLs of the API processes running now. */
  apiUrls(): string[] {
    return [...this.#current.values()]
      .filter((i) => i.role === 'api' && this.#alive(i) && i.port)
      .map((i) => `http://127.0.0.1:${i.port}`);
  }

  /** Base URL of API process `name` (while it runs). */
  url(name: string): string {
    const instance = this.#instance(name);
    if (!instance.port || !this.#alive(instance)) throw new Error(`${name} does not listen`);
    return `http://127.0.0.1:${instance.port}`;
  }

  /** The current instance of every process: whether it runs, and its base URL (API processes). */
  processes(): Array<{ name: string; role: Role; pid: number | undefined; alive: boolean; url: string | undefined }> {
    return [...this.#current.values()].map((i) => ({
      name: i.name,
      role: i.role,
      pid: i.child.pid,
      alive: this.#alive(i),
      url: i.port ? `http://127.0.0.1:${i.port}` : undefined,
    }));
  }

  /** SIGTERM to every process group, SIGKILL to what is left after STOP_TIMEOUT_MS. Never throws. */
  async stopAll(): Promise<void> {
    const running = [...this.#current.values()].filter((i) => this.#alive(i));
    for (const i of running) {
      i.expectExit = true;
      this.#signal(i, 'SIGTERM');
    }
    const timer = setTimeout(() => running.forEach((i) => this.#signal(i, 'SIGKILL')), STOP_TIMEOUT_MS);
    await Promise.all(running.map((i) => i.exited));
    clearTimeout(timer);
    // Anything a process left in its group (it starts none today) goes too.
    for (const i of this.#current.values()) this.#signal(i, 'SIGKILL');
    await Promise.all(this.#logs.map((l) => new Promise<void>((resolve) => l.end(() => resolve()))));
  }

  /** Synchronous last resort (the test process exits): SIGKILL to every group. */
  killAllNow(): void {
    for (const i of this.#current.values()) {
      i.expectExit = true;
      this.#signal(i, 'SIGKILL');
    }
  }

  #instance(name: string): Instance {
    const instance = this.#current.get(name);
    if (!instance) throw new Error(`no process named ${name}`);
    return instance;
  }

  #alive(i: Instance): boolean {
    return i.child.exitCode === null && i.child.signalCode === null;
  }

  #signal(i: Instance, signal: NodeJS.Signals): void {
    if (!i.child.pid) return;
    try {
      process.kill(-i.child.pid, signal);
    } catch {
      // the group is gone
    }
  }
}
