import type { ConnectorContext } from '@print-api/connector-kit';
import type { CursorCodec } from '../../kernel/pagination.ts';
import type { SecretBox } from '../../infra/crypto.ts';
import type { Logger } from '../../infra/logger.ts';
import type { Db } from '../tables.ts';
import type { ConnectorRegistry } from './connector-registry.ts';

/**
 * What the stores module's classes share, built once by StoresModule and passed as one
 * object (each class adds what is its own: the services it calls, its queue handles).
 */
export interface StoresContext {
  db: Db;
  /** Seals store credentials and webhook secrets at rest. */
  box: SecretBox;
  cursors: CursorCodec;
  logger: Logger;
  connectors: ConnectorRegistry;
  /** The connector's context for a platform (its settings, logger, HTTP client, webhook URLs). */
  context: (platform: string) => ConnectorContext;
}
