'use strict';
// Mocha's configuration. Plain CommonJS: it runs before any TypeScript, so that an old Node says
// so in one line, and it settles the run's time scale once, before the parallel workers start
// (they inherit TEST_TIME_SCALE from this process's environment).
require('./scripts/check-node.cjs').exitUnlessSupported('mocha');
const { settleTimeScale, workersOf } = require('./core/testing/time-scale.cjs');

// The run's own parallel workers count: 4 of them on 2 cores make every deadline twice as long.
const { scale, measured } = settleTimeScale(process.env, workersOf(process.argv));
if (scale > 1 || !measured)
  process.stderr.write(
    `test time scale ${scale} (${measured ? "measured on this machine now, with this run's workers per core" : 'TEST_TIME_SCALE'}): ` +
      'deadlines grow by it\n',
  );

module.exports = {
  extension: ['ts'],
  // A test's own deadline on an idle machine, grown by the time scale (core/testing/time-scale.cjs).
  timeout: Math.round(20_000 * scale),
  exit: true,
};
