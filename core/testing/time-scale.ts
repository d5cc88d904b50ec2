import { createRequire } from 'node:module';

/** The probe and the TEST_TIME_SCALE variable live in plain JavaScript, which mocha's configuration file loads too. */
const probe = createRequire(import.meta.url)('./time-scale.cjs') as {
  settleTimeScale(): { scale: number; measured: boolean };
};

/**
 * The run's time scale (at least 1): how much longer than on an idle machine things take here.
 * Set by the runner (TEST_TIME_SCALE) or measured once per run by `.mocharc.cjs`; see time-scale.cjs.
 */
export const TIME_SCALE: number = probe.settleTimeScale().scale;

/**
 * A deadline of `ms` on an idle machine, grown by the run's time scale: for a suite's or hook's
 * `this.timeout(scaled(60_000))` and any wait that is not `waitFor`/`eventually` (those scale
 * their own). Never for a duration a test asserts on: what is measured must not stretch.
 */
export function scaled(ms: number): number {
  return Math.round(ms * TIME_SCALE);
}
