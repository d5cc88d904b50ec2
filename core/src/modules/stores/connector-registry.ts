import { readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Connector, ConnectorLogger } from '@print-api/connector-kit';
import { platformSlug } from '@print-api/connector-kit';
import { ConfigError } from '../../config.ts';
import { readConnectorSettings } from './connector-settings.ts';

export { platformSlug };

/** `source` values of the API's own: no connector may take these names. */
const RESERVED_PLATFORMS = new Set(['API', 'DASHBOARD']);

/** The loaded connectors, by platform (the `source` value) and by URL slug (`tiktok-shop`), with their settings. */
export class ConnectorRegistry {
  readonly #byPlatform = new Map<string, Connector<any, any>>();
  readonly #settings: ReadonlyMap<string, unknown>;

  /** `settings` by platform, as `configureConnectors` parsed them (a connector without an entry gets `{}`). */
  constructor(connectors: Array<Connector<any, any>>, settings: ReadonlyMap<string, unknown> = new Map()) {
    for (const c of connectors) {
      const { platform } = c.manifest;
      if (RESERVED_PLATFORMS.has(platform))
        throw new Error(`A connector cannot be named ${platform}: it is one of the API's own order sources`);
      if (this.#byPlatform.has(platform)) throw new Error(`Two connectors are loaded for ${platform}`);
      this.#byPlatform.set(platform, c);
    }
    this.#settings = settings;
  }

  get(platform: string): Connector<any, any> | undefined {
    return this.#byPlatform.get(platform);
  }

  bySlug(slug: string): Connector<any, any> | undefined {
    return this.get(slug.toUpperCase().replace(/-/g, '_'));
  }

  all(): Array<Connector<any, any>> {
    return [...this.#byPlatform.values()];
  }

  /** The loaded platforms (each is also an order `source`). */
  platforms(): string[] {
    return [...this.#byPlatform.keys()];
  }

  /**
   * Whether the connector's OAuth install can run: it has one, and every optional setting it
   * declares it needs (`install.requiresSettings`) is set.
   */
  installable(platform: string): boolean {
    const install = this.get(platform)?.install;
    return install !== undefined && this.offered(platform) && this.#hasSettings(platform, install.requiresSettings);
  }

  /**
   * Whether stores of the platform can connect at all: every optional setting it declares all flows need
   * (`requiresSettings`) is set.
   */
  offered(platform: string): boolean {
    const connector = this.get(platform);
    return connector !== undefined && this.#hasSettings(platform, connector.requiresSettings);
  }

  #hasSettings(platform: string, keys: string[] | undefined): boolean {
    const settings = (this.#settings.get(platform) ?? {}) as Record<string, unknown>;
    return (keys ?? []).every((key) => settings[key] !== undefined && settings[key] !== '');
  }

  /** The connector's settings (`ctx.settings`). */
  settings(platform: string): unknown {
    return this.#settings.get(platform) ?? {};
  }
}

/**
 * Reads every connector's settings from its `CONNECTOR_<PLATFORM>_*` variables (`env`) and
 * builds the registry. A wrong value stops start-up (ConfigError naming the variable). A
 * required setting that is not set: when the connector was asked for by name (`CONNECTORS`
 * lists it, or a test hands it over), start-up stops too; when it was only found installed
 * (`CONNECTORS=all`), it is left out, and one info line names every connector left out (with
 * the variables each needs in its fields), so the service starts without any connector configured.
 */
export function configureConnectors(deps: {
  connectors: Array<Connector<any, any>>;
  env: (platform: string) => Record<string, string>;
  logger: ConnectorLogger;
  /** The connectors were named (not discovered): a missing setting is an error, not a warning. */
  named: boolean;
}): ConnectorRegistry {
  const loaded: Array<Connector<any, any>> = [];
  const settings = new Map<string, unknown>();
  const notConfigured: Array<{ displayName: string; platform: string; missing: string[] }> = [];
  for (const connector of deps.connectors) {
    const { platform, displayName } = connector.manifest;
    const reading = readConnectorSettings(connector, deps.env(platform));
    if (reading.unknownVariables.length > 0) {
      deps.logger.warn(
        `${reading.unknownVariables.join(', ')} ${reading.unknownVariables.length === 1 ? 'is' : 'are'} not a setting of the ${displayName} connector: ignored`,
        { platform },
      );
    }
    if (!reading.ok) {
      const message = `the ${displayName} connector needs ${reading.missing.join(', ')}`;
      if (deps.named)
        throw new ConfigError(
          `Invalid configuration:\n  ${reading.missing.join(', ')} ${reading.missing.length === 1 ? 'is' : 'are'} required: ${message}`,
        );
      notConfigured.push({ displayName, platform, missing: reading.missing });
      continue;
    }
    loaded.push(connector);
    settings.set(platform, reading.settings);
  }
  if (notConfigured.length > 0) {
    // Not a fault: a fresh `npm start` configures none. One line says which are left out; the
    // variables each needs are in its fields, for the operator (never shown to a merchant).
    deps.logger.info(`Connectors not configured, not offered: ${notConfigured.map((c) => c.displayName).join(', ')}`, {
      missing: Object.fromEntries(notConfigured.map((c) => [c.platform, c.missing])),
    });
  }
  // The one list of platforms (the console's Stores page and queues, the order source filters): said once at start-up.
  deps.logger.info(`Store platforms: ${loaded.map((c) => c.manifest.platform).join(', ') || 'none'}`, {
    platforms: loaded.map((c) => c.manifest.platform),
  });
  return new ConnectorRegistry(loaded, settings);
}

/**
 * Loads connectors without core importing any by name. `enabled` is `all` or a comma-separated
 * list whose entries are a slug (`shopify` -> `@print-api/connector-shopify`), a package name
 * (`@acme/print-api-connector-bigcartel`) or a path to a connector's package folder or module
 * (`./connectors/acme`, relative to the working directory). `all` loads every installed
 * `@print-api/connector-*` package (the kit aside): a connector added to `connectors/` is found
 * without any edit elsewhere, and nothing outside the workspace (the test reference connector)
 * ever loads unless named.
 */
export async function loadConnectors(enabled: string): Promise<Array<Connector<any, any>>> {
  const entries =
    enabled.trim() === 'all'
      ? await installedConnectorPackages()
      : enabled
          .split(',')
          .map((s) => s.trim())
          .filter(Boolean);
  const loaded: Array<Connector<any, any>> = [];
  for (const entry of entries) {
    let mod: Record<string, unknown>;
    try {
      mod = (await import(await moduleSpecifier(entry))) as Record<string, unknown>;
    } catch (err) {
      throw new ConfigError(
        `Invalid configuration:\n  CONNECTORS names '${entry}', which cannot be loaded: ${(err as Error).message}`,
      );
    }
    const connector = Object.values(mod).find(
      (v): v is Connector<any, any> => typeof v === 'object' && v !== null && 'manifest' in v,
    );
    if (!connector)
      throw new ConfigError(
        `Invalid configuration:\n  CONNECTORS names '${entry}', which exports no Connector (defineConnector)`,
      );
    loaded.push(connector);
  }
  return loaded;
}

const SLUG = /^[a-z][a-z0-9-]*$/;

/** What to import for a CONNECTORS entry: a slug's package, a package name, or a file URL for a path. */
async function moduleSpecifier(entry: string): Promise<string> {
  if (SLUG.test(entry)) return `@print-api/connector-${entry}`;
  if (!entry.startsWith('.') && !path.isAbsolute(entry)) return entry;
  const target = path.resolve(entry);
  if (!(await stat(target)).isDirectory()) return pathToFileURL(target).href;
  // A package folder: its main module, as its package.json exports it.
  const pkg = JSON.parse(await readFile(path.join(target, 'package.json'), 'utf8')) as {
    exports?: unknown;
    main?: string;
  };
  const exported =
    typeof pkg.exports === 'string' ? pkg.exports : (pkg.exports as Record<string, unknown> | undefined)?.['.'];
  const main =
    typeof exported === 'string'
      ? exported
      : ((exported as Record<string, string> | undefined)?.import ??
        (exported as Record<string, string> | undefined)?.default ??
        pkg.main ??
        'index.js');
  return pathToFileURL(path.join(target, main)).href;
}

/**
 * The `@print-api/connector-*` packages installed where this module resolves packages from (every node_modules up the
 * tree).
 */
async function installedConnectorPackages(): Promise<string[]> {
  const found = new Set<string>();
  for (let dir = path.dirname(fileURLToPath(import.meta.url)); ; dir = path.dirname(dir)) {
    const names = await readdir(path.join(dir, 'node_modules', '@print-api')).catch(() => [] as string[]);
    for (const name of names)
      if (name.startsWith('connector-') && name !== 'connector-kit') found.add(name.slice('connector-'.length));
    if (path.dirname(dir) === dir) break;
  }
  return [...found].sort();
}
