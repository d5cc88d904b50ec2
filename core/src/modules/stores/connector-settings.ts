import type { Connector } from '@print-api/connector-kit';
import { settingVariable } from '@print-api/connector-kit';
import { ConfigError } from '../../config.ts';
import { plainIssue } from '../../web/plain-issues.ts';

/** A connector's settings as read at start-up: parsed, or the required variables that are not set. */
export type SettingsReading =
  | { ok: true; settings: unknown; unknownVariables: string[] }
  | { ok: false; missing: string[]; unknownVariables: string[] };

/**
 * Parses a connector's `CONNECTOR_<PLATFORM>_<NAME>` variables (`raw`, by NAME) with its
 * manifest's `settingsSchema`. A value that is set but wrong is the operator's mistake and
 * stops start-up: a ConfigError naming each variable, like core's own configuration. A
 * required setting that is not set is reported as `missing` (the registry decides). Variables
 * with the platform's prefix that name no setting are returned, to be warned about (a typo
 * must not pass silently, but another platform's longer prefix may share this one).
 */
export function readConnectorSettings(connector: Connector<any, any>, raw: Record<string, string>): SettingsReading {
  const { platform, settingsSchema } = connector.manifest;
  const prefix = `CONNECTOR_${platform}_`;
  const keyByName = new Map(
    Object.keys(settingsSchema?.shape ?? {}).map((key) => [settingVariable(platform, key).slice(prefix.length), key]),
  );
  const unknownVariables = Object.keys(raw)
    .filter((name) => !keyByName.has(name))
    .map((name) => `${prefix}${name}`);
  const input: Record<string, string> = {};
  for (const [name, key] of keyByName) if (raw[name] !== undefined) input[key] = raw[name];
  if (!settingsSchema) return { ok: true, settings: {}, unknownVariables };

  const parsed = settingsSchema.safeParse(input);
  if (parsed.success) return { ok: true, settings: parsed.data, unknownVariables };
  const missing: string[] = [];
  const wrong: string[] = [];
  for (const issue of parsed.error.issues) {
    const key = issue.path[0];
    if (typeof key !== 'string') wrong.push(`${prefix}* ${plainIssue(issue)}`);
    else if (input[key] === undefined) missing.push(settingVariable(platform, key));
    else wrong.push(`${settingVariable(platform, key)} ${plainIssue(issue)}`);
  }
  if (wrong.length > 0) throw new ConfigError(`Invalid configuration:\n  ${wrong.join('\n  ')}`);
  return { ok: false, missing: [...new Set(missing)], unknownVariables };
}
