import { execFile, execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { appendFileSync, chownSync, existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { createConnection, createServer, type AddressInfo } from 'node:net';
import path from 'node:path';
import { waitFor } from '../../core/test/helpers/wait.ts';

/**
 * A PostgreSQL cluster and a Redis server of the fault suite's own, in a temp dir on free
 * ports: the suite stops and restarts them, which it must never do to the machine's shared
 * services (5432, 6379).
 */

/** Where initdb, pg_ctl and redis-server are; undefined (with the reason) when one is missing. */
export interface ServiceTools {
  pgBin: string;
  redisServer: string;
  /** Run PostgreSQL's tools as this OS user (they refuse to run as root). */
  runAs: string | undefined;
}

export function findServiceTools(): ServiceTools | { missing: string } {
  const pgBin = postgresBinDir();
  if (!pgBin) return { missing: 'initdb and pg_ctl (PostgreSQL server binaries) are not installed' };
  const redisServer = onPath('redis-server');
  if (!redisServer) return { missing: 'redis-server is not installed' };
  if (process.getuid?.() !== 0) return { pgBin, redisServer, runAs: undefined };
  try {
    execFileSync('id', ['-u', 'postgres'], { stdio: 'ignore' });
  } catch {
    return { missing: 'running as root, and there is no postgres OS user to run initdb as' };
  }
  if (!onPath('runuser'))
    return { missing: 'running as root, and runuser (to run initdb as postgres) is not installed' };
  return { pgBin, redisServer, runAs: 'postgres' };
}

function postgresBinDir(): string | undefined {
  const hasTools = (dir: string) => existsSync(path.join(dir, 'initdb')) && existsSync(path.join(dir, 'pg_ctl'));
  try {
    const dir = execFileSync('pg_config', ['--bindir'], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    }).trim();
    if (hasTools(dir)) return dir;
  } catch {
    // no pg_config (a client-only install, or none): look where Debian and Ubuntu put servers
  }
  const versions = existsSync('/usr/lib/postgresql')
    ? readdirSync('/usr/lib/postgresql').sort((a, b) => Number(b) - Number(a))
    : [];
  for (const v of versions) if (hasTools(`/usr/lib/postgresql/${v}/bin`)) return `/usr/lib/postgresql/${v}/bin`;
  const initdb = onPath('initdb');
  return initdb && hasTools(path.dirname(initdb)) ? path.dirname(initdb) : undefined;
}

function onPath(name: string): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(':')) {
    if (dir && existsSync(path.join(dir, name))) return path.join(dir, name);
  }
  return undefined;
}

/** A TCP port nobody listens on right now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** PostgreSQL in `<dir>/pg`, owned by the tools' user, listening on 127.0.0.1:port only. */
export class ThrowawayPostgres {
  readonly port: number;
  readonly #tools: ServiceTools;
  readonly #dataDir: string;
  readonly #logFile: string;

  private constructor(tools: ServiceTools, dir: string, port: number) {
    this.#tools = tools;
    this.#dataDir = path.join(dir, 'pg');
    this.#logFile = path.join(dir, 'pg', 'server.log');
    this.port = port;
  }

  /** initdb, then start. `dir` must be traversable by the tools' user. */
  static async create(tools: ServiceTools, dir: string): Promise<ThrowawayPostgres> {
    const cluster = new ThrowawayPostgres(tools, dir, await freePort());
    mkdirSync(cluster.#dataDir, { mode: 0o700 });
    if (tools.runAs) {
      const uid = Number(execFileSync('id', ['-u', tools.runAs], { encoding: 'utf8' }).trim());
      const gid = Number(execFileSync('id', ['-g', tools.runAs], { encoding: 'utf8' }).trim());
      chownSync(cluster.#dataDir, uid, gid);
    }
    await cluster.#run('initdb', [
      '-D',
      cluster.#dataDir,
      '-U',
      'postgres',
      '--auth=trust',
      '-E',
      'UTF8',
      '--no-locale',
      '--no-sync',
    ]);
    // A test cluster: durability is not what is tested (a restart is a clean shutdown), speed is.
    appendFileSync(
      path.join(cluster.#dataDir, 'postgresql.conf'),
      [
        `port = ${cluster.port}`,
        `listen_addresses = '127.0.0.1'`,
        `unix_socket_directories = '${cluster.#dataDir}'`,
        'fsync = off',
        'synchronous_commit = off',
        'full_page_writes = off',
        'max_connections = 200',
        'shared_buffers = 32MB',
        '',
      ].join('\n'),
    );
    await cluster.start();
    return cluster;
  }

  url(database = 'postgres'): string {
    return `postgres://postgres@127.0.0.1:${this.port}/${database}`;
  }

  async start(): Promise<void> {
    await this.#run('pg_ctl', ['-D', this.#dataDir, '-l', this.#logFile, '-w', '-t', '120', 'start']);
  }

  /**
   * `fast`: every session is terminated (57P01, what an operator's restart does); `immediate`: no shutdown checkpoint.
   */
  async stop(mode: 'fast' | 'immediate' = 'fast'): Promise<void> {
    await this.#run('pg_ctl', ['-D', this.#dataDir, '-m', mode, '-w', '-t', '120', 'stop']);
  }

  /** Stops the server if it runs, whatever state the suite left it in (cleanup). */
  async stopQuietly(): Promise<void> {
    await this.#run('pg_ctl', ['-D', this.#dataDir, '-m', 'immediate', '-w', '-t', '30', 'stop']).catch(
      () => undefined,
    );
  }

  /** Synchronous last resort (the test process is exiting): an immediate stop, else SIGQUIT to the postmaster. */
  killNow(): void {
    const bin = path.join(this.#tools.pgBin, 'pg_ctl');
    const args = ['-D', this.#dataDir, '-m', 'immediate', '-w', '-t', '10', 'stop'];
    try {
      if (this.#tools.runAs)
        execFileSync('runuser', ['-u', this.#tools.runAs, '--', bin, ...args], {
          cwd: path.dirname(this.#dataDir),
          stdio: 'ignore',
          timeout: 15_000,
        });
      else execFileSync(bin, args, { stdio: 'ignore', timeout: 15_000 });
      return;
    } catch {
      // not running, or pg_ctl failed: signal the postmaster itself
    }
    try {
      const pid = Number(readFileSync(path.join(this.#dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
      if (pid > 0) process.kill(pid, 'SIGQUIT');
    } catch {
      // not running
    }
  }

  /** The end of the server's log, for a failure message. */
  logTail(bytes = 4000): string {
    try {
      return readFileSync(this.#logFile, 'utf8').slice(-bytes);
    } catch {
      return '';
    }
  }

  /** Runs a PostgreSQL tool (as the tools' user), asynchronously: the load goes on meanwhile. */
  #run(tool: string, args: string[]): Promise<void> {
    const bin = path.join(this.#tools.pgBin, tool);
    const [cmd, argv] = this.#tools.runAs ? ['runuser', ['-u', this.#tools.runAs, '--', bin, ...args]] : [bin, args];
    return new Promise((resolve, reject) => {
      // cwd: a directory the tools' user may enter (not the repository's).
      execFile(cmd, argv, { cwd: path.dirname(this.#dataDir), timeout: 150_000 }, (err, stdout, stderr) => {
        if (!err) return resolve();
        reject(new Error(`${tool} ${args.join(' ')} failed: ${err.message}\n${stdout}${stderr}\n${this.logTail()}`));
      });
    });
  }
}

/**
 * redis-server on 127.0.0.1:port, nothing persisted: a restart loses every key, as a Redis without persistence does.
 */
export class ThrowawayRedis {
  readonly port: number;
  readonly #bin: string;
  readonly #dir: string;
  #child: ChildProcess | undefined;
  #log = '';

  private constructor(bin: string, dir: string, port: number) {
    this.#bin = bin;
    this.#dir = dir;
    this.port = port;
  }

  static async create(tools: ServiceTools, dir: string): Promise<ThrowawayRedis> {
    mkdirSync(dir, { recursive: true });
    const redis = new ThrowawayRedis(tools.redisServer, dir, await freePort());
    await redis.start();
    return redis;
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  async start(): Promise<void> {
    if (this.#child && this.#child.exitCode === null && this.#child.signalCode === null) return;
    const child = spawn(
      this.#bin,
      [
        '--port',
        String(this.port),
        '--bind',
        '127.0.0.1',
        '--save',
        '',
        '--appendonly',
        'no',
        '--dir',
        this.#dir,
        '--protected-mode',
        'no',
      ],
      {
        detached: true,
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    const keep = (chunk: Buffer) => void (this.#log = (this.#log + chunk.toString()).slice(-8000));
    child.stdout!.on('data', keep);
    child.stderr!.on('data', keep);
    this.#child = child;
    await waitFor(
      `redis-server on port ${this.port}`,
      async () => {
        if (child.exitCode !== null) throw new Error(`redis-server exited with ${child.exitCode}:\n${this.#log}`);
        return ping(this.port);
      },
      30_000,
      50,
    );
  }

  /** SIGTERM: without persistence configured it saves nothing, so every queue and counter is gone. */
  async stop(): Promise<void> {
    const child = this.#child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(timer);
  }

  killNow(): void {
    const pid = this.#child?.pid;
    if (pid && this.#child!.exitCode === null) {
      try {
        process.kill(-pid, 'SIGKILL');
      } catch {
        // gone already
      }
    }
  }
}

/** True when a Redis answers PING on 127.0.0.1:port. */
function ping(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    let reply = '';
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(1000, () => done(false));
    socket.on('error', () => done(false));
    socket.on('connect', () => socket.write('PING\r\n'));
    socket.on('data', (chunk) => {
      reply += chunk.toString();
      if (reply.includes('\r\n')) done(reply.startsWith('+PONG'));
    });
  });
}
