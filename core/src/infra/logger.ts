import winston from 'winston';

export type Logger = winston.Logger;

/** JSON-lines logger. The only place that writes to stdout/stderr. */
export function createLogger(level: string, defaultMeta: Record<string, unknown> = {}): Logger {
  return winston.createLogger({
    level,
    defaultMeta,
    format: winston.format.combine(
      winston.format.timestamp(),
      winston.format.errors({ stack: true }),
      winston.format.json(),
    ),
    transports: [new winston.transports.Console({ stderrLevels: ['error', 'warn'] })],
  });
}

/** A logger that drops everything (tests that do not look at logs). */
export function silentLogger(): Logger {
  return winston.createLogger({ silent: true, transports: [new winston.transports.Console({ silent: true })] });
}

/** A logger that writes (to stderr, as JSON) only the warnings and errors whose message `shown` picks. */
export function onlyLogger(shown: (message: string) => boolean): Logger {
  const pick = winston.format((info) => (typeof info.message === 'string' && shown(info.message) ? info : false));
  return winston.createLogger({
    level: 'warn',
    format: winston.format.combine(pick(), winston.format.timestamp(), winston.format.json()),
    transports: [new winston.transports.Console({ stderrLevels: ['error', 'warn'] })],
  });
}
