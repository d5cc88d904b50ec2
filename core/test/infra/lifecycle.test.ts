import { expect } from 'chai';
import express from 'express';
import { Writable } from 'node:stream';
import winston from 'winston';
import { serviceLifecycle } from '../../src/composition/lifecycle.ts';

/** A winston transport that keeps what it is given. */
function keptLogs() {
  const entries: Array<Record<string, unknown>> = [];
  const stream = new Writable({
    objectMode: true,
    write(info: Record<string, unknown>, _encoding, done) {
      entries.push(info);
      done();
    },
  });
  return { entries, transport: new winston.transports.Stream({ stream }) };
}

describe('the service lifecycle', () => {
  it('ends a stop whose step never finishes: the step is logged by name and the later steps still run', async () => {
    const kept = keptLogs();
    const ran: string[] = [];
    const lifecycle = serviceLifecycle({
      config: { PORT: 0, HOST: '127.0.0.1', SHUTDOWN_TIMEOUT_MS: 50 },
      app: express(),
      logger: winston.createLogger({ transports: [kept.transport] }),
      onListening: () => undefined,
      start: [],
      stop: {
        first: [['first', () => void ran.push('first')]],
        after: [
          ['stuck', () => new Promise(() => undefined)],
          [
            'failing',
            () => {
              throw new Error('gone already');
            },
          ],
          ['last', () => void ran.push('last')],
        ],
      },
    });
    await lifecycle.listen();
    await lifecycle.close();
    expect(ran).to.deep.equal(['first', 'last']);
    expect(kept.entries.map((e) => [e.message, e.step])).to.deep.equal([
      ['shutdown step did not finish in time; going on without it', 'stuck'],
      ['shutdown step failed; going on', 'failing'],
    ]);
  });
});
