import { setPriority } from 'node:os';
import { ConfigError, loadConfig } from './config.ts';
import { API_BASE, composeService } from './composition.ts';

/** The service process (loaded by main.ts). ROLE=all runs the API and the workers; api or worker run one of them. */
async function main(): Promise<void> {
  let config;
  let service;
  try {
    config = loadConfig();
    // Composing reads the connectors' CONNECTOR_* settings: a wrong one is a configuration error too.
    service = await composeService(config);
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`${err.message}\n`);
      process.exit(78);
    }
    throw err;
  }
  const { logger } = service;
  // Queue work waits a moment where API requests cannot: on a shared machine the scheduler runs them first.
  if (config.ROLE === 'worker' && config.WORKER_NICE > 0) {
    try {
      setPriority(config.WORKER_NICE);
    } catch (err) {
      logger.warn('worker priority not lowered', { error: (err as Error).message });
    }
  }
  if (config.ROLE !== 'api') await service.startWorkers();
  if (config.ROLE !== 'worker') {
    const server = await service.listen();
    const address = server.address();
    const port = typeof address === 'object' && address ? address.port : config.PORT;
    const base = `http://${config.HOST}:${port}`;
    logger.info('listening', {
      api: `${base}${API_BASE}`,
      admin: `${base}/admin/v1`,
      console: `${base}/admin`,
      docs: `${base}${API_BASE}/docs`,
      database: service.databaseKind,
    });
    if (config.NODE_ENV !== 'production') {
      process.stdout.write(`\nReseller Print API listening on ${base}${API_BASE}\n`);
      process.stdout.write(`API reference:     ${base}${API_BASE}/docs\n`);
      process.stdout.write(`Back-office API:   ${base}/admin/v1\n`);
      process.stdout.write(`Operators' console: ${base}/admin  (sign in with the back-office token)\n`);
      process.stdout.write(
        `Reseller dashboard: ${base}/dashboard  (sign in with a link: npm run admin -- login-link <reseller id>)\n`,
      );
      if (service.generatedAdminToken)
        process.stdout.write(`Back-office token: ${service.adminToken}  (stored in ${config.DATA_DIR}/secrets.json)\n`);
      process.stdout.write(
        `Database:          ${service.databaseKind}; queue: ${config.REDIS_URL ? 'BullMQ on Redis' : 'in-process'}\n\n`,
      );
    }
  } else {
    logger.info('worker started', { database: service.databaseKind });
    if (config.NODE_ENV !== 'production')
      process.stdout.write(
        `\nReseller Print API worker started; database: ${service.databaseKind}; queue: BullMQ on Redis\n\n`,
      );
  }

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info('shutting down', { signal });
    const force = setTimeout(() => process.exit(1), config.SHUTDOWN_TIMEOUT_MS + 5000);
    force.unref();
    try {
      await service.close();
      process.exit(0);
    } catch (err) {
      logger.error('shutdown failed', { error: (err as Error).stack });
      process.exit(1);
    }
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
}

await main();
