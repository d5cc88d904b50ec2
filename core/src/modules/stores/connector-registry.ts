import type { Connector } from '@print-api/connector-kit';
import { STORE_PLATFORMS } from '@print-api/connector-kit';

/** The loaded connectors, by platform (the `source` value) and by URL slug (`tiktok-shop`). */
export class ConnectorRegistry {
  readonly #byPlatform = new Map<string, Connector<any>>();

  constructor(connectors: Array<Connector<any>>) {
    for (const c of connectors) this.#byPlatform.set(c.manifest.platform, c);
  }

  get(platform: string): Connector<any> | undefined {
    return this.#byPlatform.get(platform);
  }

  bySlug(slug: string): Connector<any> | undefined {
    return this.get(slug.toUpperCase().replace(/-/g, '_'));
  }

  all(): Array<Connector<any>> {
    return [...this.#byPlatform.values()];
  }
}

export const platformSlug = (platform: string): string => platform.toLowerCase().replace(/_/g, '-');

/**
 * Loads the enabled connectors by package name (`@print-api/connector-<slug>`), so core never
 * imports a connector by name. `enabled` is `all` or a comma-separated list of slugs.
 */
export async function loadConnectors(enabled: string): Promise<Array<Connector<any>>> {
  const slugs = enabled === 'all' ? STORE_PLATFORMS.map(platformSlug) : enabled.split(',').map((s) => s.trim()).filter(Boolean);
  const loaded: Array<Connector<any>> = [];
  for (const slug of slugs) {
    let mod: Record<string, unknown>;
    try {
      mod = (await import(`@print-api/connector-${slug}`)) as Record<string, unknown>;
    } catch (err) {
      if (enabled === 'all' && (err as NodeJS.ErrnoException).code === 'ERR_MODULE_NOT_FOUND') continue;
      throw new Error(`CONNECTORS names '${slug}', but @print-api/connector-${slug} cannot be loaded: ${(err as Error).message}`);
    }
    const connector = Object.values(mod).find((v): v is Connector<any> => typeof v === 'object' && v !== null && 'manifest' in v);
    if (!connector) throw new Error(`@print-api/connector-${slug} exports no Connector`);
    loaded.push(connector);
  }
  return loaded;
}
