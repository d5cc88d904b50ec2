import { expect } from 'chai';
import { createRequire } from 'node:module';

const { ownShareOfCores, settleTimeScale, workersOf } = createRequire(import.meta.url)('../testing/time-scale.cjs') as {
  ownShareOfCores(workers: number, cores: number): number;
  settleTimeScale(env: Record<string, string | undefined>, workers?: number): { scale: number; measured: boolean };
  workersOf(argv: string[]): number;
};

describe("the tests' time scale", () => {
  it("counts the run's own parallel workers from mocha's command line", () => {
    expect(workersOf(['node', 'mocha', '--parallel', '--jobs', '4', 'a.test.ts'])).to.equal(4);
    expect(workersOf(['node', 'mocha', '-p', '-j', '3'])).to.equal(3);
    expect(workersOf(['node', 'mocha', '--jobs=6', '--parallel'])).to.equal(6);
    expect(workersOf(['node', 'mocha', '--jobs', '4', 'a.test.ts']), 'jobs without --parallel run serially').to.equal(
      1,
    );
    expect(workersOf(['node', 'mocha', 'a.test.ts'])).to.equal(1);
  });

  it('grows by the share of a core each worker gets, never below 1', () => {
    expect(ownShareOfCores(4, 2)).to.equal(2);
    expect(ownShareOfCores(3, 4)).to.equal(1);
    expect(ownShareOfCores(1, 1)).to.equal(1);
  });

  it('keeps the scale the runner set, whatever the workers', () => {
    const env: Record<string, string | undefined> = { TEST_TIME_SCALE: '3' };
    expect(settleTimeScale(env, 16)).to.deep.equal({ scale: 3, measured: false });
  });

  it('measures at least the workers-per-core share and hands it to the workers through TEST_TIME_SCALE', () => {
    const env: Record<string, string | undefined> = {};
    // A thousand workers: more than 25 per core on any machine that runs this.
    const { scale, measured } = settleTimeScale(env, 1000);
    expect(measured).to.equal(true);
    expect(scale, 'capped: past it a test is stuck, not slow').to.equal(25);
    expect(env.TEST_TIME_SCALE).to.equal('25');
  });
});
