/**
 * A deadline of `ms` on an idle machine, grown by the run's time scale: the TEST_TIME_SCALE the runner
 * set, or the factor print-api's mocha configuration measured once for the run and wrote there (see
 * core/testing/time-scale.cjs; the kit reads the variable, as it takes no build dependency on core).
 * 1 when nothing set it.
 */
export function scaledDeadline(ms: number): number {
  const scale = Number(process.env.TEST_TIME_SCALE);
  return Number.isFinite(scale) && scale >= 1 ? Math.round(ms * scale) : ms;
}
