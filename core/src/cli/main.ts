import { parseArgs } from 'node:util';
import { adminCall, CliError, resolveTarget } from './admin-client.ts';
import { ALIASES, COMMANDS, type Command } from './commands.ts';
import { listen } from './listen.ts';
import { readable } from './output.ts';
import { loadConfig } from '../config.ts';

/** Where a CLI run writes, what environment it reads, and what stops `listen` (SIGINT in a terminal). */
export interface CliIo {
  stdout(text: string): void;
  stderr(text: string): void;
  env: Record<string, string | undefined>;
  /** Asked for by `listen` only: aborted when the person stops it. */
  interrupts?(): AbortSignal;
}

/**
 * `npm run admin -- <command>`: the back-office operations from a terminal. It calls the
 * back-office HTTP API of a running service, found the way `npm start` printed it (--url, else
 * PUBLIC_URL, else http://HOST:PORT), with --token, ADMIN_TOKEN or the token `npm start`
 * generated into DATA_DIR. Answers are printed as tables and `field  value` lines (`--json`:
 * the JSON as the API answered it).
 */
const LISTEN: Pick<Command, 'name' | 'usage' | 'summary' | 'details' | 'examples'> = {
  name: 'listen',
  usage:
    '(RESELLER_ID [--mode test|live] | --api-key prk_…) [--forward-to URL] [--events a,b] [--secret whsec_…] [--after evt_…]',
  summary: "stream a reseller's events and deliver them, signed like webhooks, to a local URL",
  details: [
    '--forward-to URL the local receiver, e.g. http://localhost:4000/hooks (left out: events are only printed)',
    '--mode test|live which events, with RESELLER_ID (default test: the sandbox)',
    "--api-key KEY    stream with a reseller's API key instead (its mode); needs the webhooks:read scope",
    '--events LIST    comma-separated event types (default: all)',
    '--secret whsec_  sign with this secret (default: a new one, printed at start)',
    '--after evt_…    first replay the events after this one',
    '',
    'Each event is POSTed with the exact body and headers of a webhook delivery (X-Service-Event,',
    'X-Service-Delivery, X-Service-Attempt, X-Service-Timestamp, X-Service-Signature: v1=HMAC-SHA256',
    'of "<timestamp>.<body>"), keyed with the session secret printed at start. This process makes',
    'the local request: nothing connects to your machine. A dropped stream resumes where it stopped.',
  ],
  examples: ['npm run admin -- listen rsl_01J… --forward-to http://localhost:4000/hooks'],
};

const GLOBAL_OPTIONS = [
  '--url URL        the service (default: PUBLIC_URL, else http://HOST:PORT, as `npm start` prints it)',
  '--token TOKEN    an operator token (opt_…, with its role) or the admin token (default: ADMIN_TOKEN, else',
  '                 DATA_DIR/secrets.json from `npm start`)',
  '--json           print the answer as JSON, as the API gave it (default: a table)',
  '--help, -h       help; `npm run admin -- <command> --help` for one command',
];

function usage(): string {
  const all = [...COMMANDS, LISTEN];
  const width = Math.max(...all.map((c) => c.name.length)) + 2;
  return [
    'usage: npm run admin -- <command> [arguments] [options]',
    '',
    'commands:',
    ...all.map((c) => `  ${c.name.padEnd(width)}${c.summary}`),
    '',
    'options of every command:',
    ...GLOBAL_OPTIONS.map((l) => `  ${l}`),
    '',
  ].join('\n');
}

function commandHelp(c: Pick<Command, 'name' | 'usage' | 'summary' | 'details' | 'examples'>): string {
  return [
    `usage: npm run admin -- ${c.name} ${c.usage}`,
    '',
    `  ${c.summary}`,
    ...(c.details?.length ? ['', 'options:', ...c.details.map((l) => (l ? `  ${l}` : ''))] : []),
    '',
    ...GLOBAL_OPTIONS.map((l) => `  ${l}`),
    ...(c.examples?.length ? ['', 'example:', ...c.examples.map((e) => `  ${e}`)] : []),
    '',
  ].join('\n');
}

/** One run of the CLI: its exit code (0 done, 1 refused or failed, 2 a usage error); it never throws. */
export async function runCli(argv: string[], io: CliIo): Promise<number> {
  try {
    return await run(argv, io);
  } catch (err) {
    io.stderr(`${(err as Error).message}\n`);
    return err instanceof CliError ? err.exitCode : 1;
  }
}

async function run(argv: string[], io: CliIo): Promise<number> {
  const options: Record<string, { type: 'string' | 'boolean'; short?: string }> = {
    help: { type: 'boolean', short: 'h' },
  };
  for (const n of [
    'name',
    'email',
    'phone',
    'discount',
    'mode',
    'scopes',
    'amount',
    'reference',
    'token',
    'status',
    'carrier',
    'tracking-number',
    'tracking-url',
    'search',
    'limit',
    'cursor',
    'state',
    'external-id',
    'endpoint',
    'store',
    'url',
    'forward-to',
    'api-key',
    'events',
    'secret',
    'after',
  ]) {
    options[n] = { type: 'string' };
  }
  options.json = { type: 'boolean' };
  let parsed: ReturnType<typeof parseArgs<{ args: string[]; allowPositionals: true; options: typeof options }>>;
  try {
    parsed = parseArgs({ args: argv, allowPositionals: true, options });
  } catch (err) {
    // Node's parser explains itself in its own terms (positional arguments after '--'); a person
    // wants to know which option is wrong and what the command takes.
    return usageError(argv, err as Error & { code?: string }, io);
  }
  const { positionals, values } = parsed;
  const [name, ...args] = positionals;
  if (!name || name === 'help') {
    const about = args[0] && [...COMMANDS, LISTEN].find((c) => c.name === (ALIASES[args[0]!] ?? args[0]));
    io.stdout(about ? commandHelp(about) : usage());
    return name ? 0 : values.help ? 0 : 2;
  }
  const command = name === LISTEN.name ? LISTEN : COMMANDS.find((c) => c.name === (ALIASES[name] ?? name));
  if (!command) {
    io.stderr(`unknown command '${name}'\n\n${usage()}`);
    return 2;
  }
  if (values.help) {
    io.stdout(commandHelp(command));
    return 0;
  }
  const config = loadConfig(io.env);
  // The global --token is the back-office token; save-card's --token is the card's.
  const target = resolveTarget(config, {
    url: values.url as string | undefined,
    token: command.name === 'save-card' ? undefined : (values.token as string | undefined),
  });
  try {
    if (command === LISTEN) {
      const apiKey = values['api-key'] as string | undefined;
      if (!apiKey && !args[0]) throw new CliError('missing RESELLER_ID (or --api-key)', 2);
      const mode = (values.mode as string | undefined) ?? 'test';
      if (mode !== 'test' && mode !== 'live') throw new CliError('--mode must be test or live', 2);
      await listen({
        target,
        source: apiKey ? { apiKey } : { resellerId: args[0]!, mode },
        forwardTo: values['forward-to'] as string | undefined,
        secret: values.secret as string | undefined,
        types: (values.events as string | undefined)
          ?.split(',')
          .map((t) => t.trim())
          .filter(Boolean),
        after: values.after as string | undefined,
        out: (line) => io.stdout(`${line}\n`),
        signal: io.interrupts?.() ?? new AbortController().signal,
      });
      return 0;
    }
    const print = (value: unknown) => io.stdout(`${values.json ? JSON.stringify(value, null, 2) : readable(value)}\n`);
    return await (command as Command).run({
      args,
      values: values as Record<string, string | boolean | undefined>,
      fetchJson: (method, p, body) => adminCall(target, method, p, body),
      call: async (method, p, body) => {
        const res = await adminCall(target, method, p, body);
        // A refusal is not the answer a pipe wants: a person reads it on stderr (--json keeps it on stdout, as it
        // came).
        if (res.status >= 300 && !values.json) io.stderr(`${readable(res.body)}\n`);
        else print(res.body);
        return res.status < 300 ? 0 : 1;
      },
      print,
      note: (line) => io.stderr(`${line}\n`),
    });
  } catch (err) {
    if (err instanceof CliError && err.exitCode === 2) {
      io.stderr(`${command.name}: ${err.message}\n\n${commandHelp(command)}`);
      return 2;
    }
    throw err;
  }
}

/** A wrong or incomplete option: which one, then the command's usage (or the overview). */
function usageError(argv: string[], err: Error & { code?: string }, io: CliIo): number {
  const name = argv.find((a) => !a.startsWith('-'));
  const command = name === LISTEN.name ? LISTEN : COMMANDS.find((c) => c.name === (ALIASES[name ?? ''] ?? name));
  const option = /'(-{1,2}[^' ]+)/.exec(err.message)?.[1];
  const problem =
    err.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION'
      ? `unknown option ${option ?? ''}`.trim()
      : err.code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE'
        ? `${option ?? 'an option'} needs a value`
        : 'the options are not valid';
  io.stderr(command ? `${command.name}: ${problem}\n\n${commandHelp(command)}` : `${problem}\n\n${usage()}`);
  return 2;
}
