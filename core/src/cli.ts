import { runCli } from './cli/main.ts';

/** `npm run admin -- <command>` (cli/main.ts) with this process's arguments, environment and terminal. */
const code = await runCli(process.argv.slice(2), {
  stdout: (text) => void process.stdout.write(text),
  stderr: (text) => void process.stderr.write(text),
  env: process.env,
  // Only a `listen` takes SIGINT and SIGTERM (it ends its stream); any other command stops at once.
  interrupts: () => {
    const stop = new AbortController();
    process.once('SIGINT', () => stop.abort());
    process.once('SIGTERM', () => stop.abort());
    return stop.signal;
  },
});
process.exit(code);
