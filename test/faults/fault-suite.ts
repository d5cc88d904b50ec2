import { REQUIRE_SERVICES } from '../../core/test/helpers/services.ts';
import { FaultWorld } from './fault-environment.ts';
import type { ProcessSupervisor } from './process-supervisor.ts';
import { findServiceTools } from './throwaway-services.ts';

/**
 * Registers a fault suite's hooks: before its scenarios, the suite's own PostgreSQL, Redis and
 * receiver (skipped when a tool is missing, failed under REQUIRE_SERVICES=1); after them, their
 * cleanup. Whatever ends the test process meanwhile (a failed hook, Ctrl-C, a CI timeout)
 * takes the scenario's processes (`running`) and the suite's servers with it. Answers the world
 * (once the before hook ran).
 */
export function useFaultWorld(running: () => ProcessSupervisor | undefined): () => FaultWorld {
  let world: FaultWorld | undefined;
  const cleanups: Array<() => Promise<void>> = [];
  const killers: Array<() => void> = [];
  let killed = false;
  const killAll = () => {
    if (killed) return;
    killed = true;
    running()?.killAllNow();
    for (const k of killers) k();
  };
  const onSignal = (signal: NodeJS.Signals) => {
    killAll();
    process.exit(signal === 'SIGINT' ? 130 : 143);
  };

  before(async function () {
    const tools = findServiceTools();
    if ('missing' in tools) {
      if (REQUIRE_SERVICES) throw new Error(`the fault suite cannot run: ${tools.missing} (REQUIRE_SERVICES=1)`);
      this.skip();
    }
    process.on('exit', killAll);
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
    world = await FaultWorld.start(tools, (cleanup, now) => {
      cleanups.push(cleanup);
      killers.push(now);
    });
  });

  after(async () => {
    for (const c of cleanups) await c().catch(() => undefined);
    process.off('exit', killAll);
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  });

  return () => {
    if (!world) throw new Error('the fault world is not started');
    return world;
  };
}
