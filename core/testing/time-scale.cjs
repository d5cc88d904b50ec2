'use strict';
/**
 * The tests' time scale: one factor by which every deadline of the test suite grows on a busy
 * machine (`waitFor`/`eventually`, mocha's per-test timeout, `scaled(ms)` for a suite's own
 * `this.timeout`). Waits poll for their condition, so a larger deadline costs nothing when the
 * condition comes; it only keeps a slow machine from failing a test that would pass.
 *
 * The runner may set it (`TEST_TIME_SCALE=3 npm test`); otherwise `.mocharc.cjs` measures it
 * once per run, before the workers start, and hands it to them through the same variable. Plain
 * JavaScript (CommonJS): mocha's configuration file loads it.
 */
const ENV = 'TEST_TIME_SCALE';
/** A deadline grows at most this much: past it a test is stuck, not slow. */
const MAX_SCALE = 25;
/** CPU time the probe spins for: long enough to see the scheduler share the cores, short enough to wait for. */
const PROBE_CPU_MS = 150;

/**
 * How much longer than its CPU time a piece of work takes here now: this process spins for
 * PROBE_CPU_MS of CPU time and divides the wall-clock time that took by it. On an idle core the
 * two are equal (1); with twice as many busy processes as cores the work waits half the time (2).
 * Independent of the machine's speed: a slow CPU makes both times longer.
 */
function measureTimeScale(cpuMs = PROBE_CPU_MS) {
  const wallStart = process.hrtime.bigint();
  const cpuStart = process.cpuUsage();
  let cpuUs = 0;
  let wallUs = 0;
  let sink = 0;
  // Past MAX_SCALE times the CPU time the answer is MAX_SCALE: the probe stops there.
  while (cpuUs < cpuMs * 1000 && wallUs < cpuMs * 1000 * MAX_SCALE) {
    for (let i = 0; i < 100_000; i++) sink += i % 7;
    const used = process.cpuUsage(cpuStart);
    cpuUs = used.user + used.system;
    wallUs = Number(process.hrtime.bigint() - wallStart) / 1000;
  }
  return clamp(sink >= 0 && cpuUs > 0 ? wallUs / cpuUs : MAX_SCALE);
}

function clamp(scale) {
  return Math.min(MAX_SCALE, Math.max(1, Math.round(scale * 10) / 10));
}

/** The scale the runner set in TEST_TIME_SCALE, or undefined; a value that is no number of at least 1 is refused. */
function givenTimeScale(env = process.env) {
  const given = env[ENV];
  if (given === undefined || given.trim() === '') return undefined;
  const scale = Number(given);
  if (!Number.isFinite(scale) || scale < 1) throw new Error(`${ENV} must be a number of at least 1, not "${given}"`);
  return scale;
}

/**
 * How many of the run's own test processes share each core: a parallel run of 4 workers on 2 cores
 * gives each at most half a core, so its work takes at least twice its CPU time even on a machine
 * that was idle when the probe ran (1 when the workers fit the cores).
 */
function ownShareOfCores(workers = 1, cores = require('node:os').availableParallelism()) {
  return Math.max(1, workers / Math.max(1, cores));
}

/**
 * The run's scale: the one the runner set, or else measured now (the probe's reading of the
 * machine's other work, times the share of the cores this run's own `workers` will each get) and
 * written to TEST_TIME_SCALE so that every worker process of this run (they inherit the
 * environment) uses the same.
 */
function settleTimeScale(env = process.env, workers = 1) {
  const given = givenTimeScale(env);
  if (given !== undefined) return { scale: given, measured: false };
  const scale = clamp(measureTimeScale() * ownShareOfCores(workers));
  env[ENV] = String(scale);
  return { scale, measured: true };
}

/**
 * The parallel workers mocha will start, read from its command line (`--parallel`/`-p` with
 * `--jobs N`/`-j N`/`--jobs=N`; mocha's default is the cores less one), or 1 for a serial run.
 */
function workersOf(argv = process.argv) {
  const parallel = argv.some((a) => a === '--parallel' || a === '-p' || a === '--parallel=true');
  if (!parallel) return 1;
  for (const [i, a] of argv.entries()) {
    const inline = /^--jobs=(\d+)$/.exec(a);
    if (inline) return Number(inline[1]);
    if ((a === '--jobs' || a === '-j') && /^\d+$/.test(argv[i + 1] ?? '')) return Number(argv[i + 1]);
  }
  return Math.max(1, require('node:os').availableParallelism() - 1);
}

module.exports = { ENV, MAX_SCALE, measureTimeScale, givenTimeScale, ownShareOfCores, settleTimeScale, workersOf };
