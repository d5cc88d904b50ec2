import { ADMIN_BASE, API_BASE } from '../core/src/http/app.ts';
import type { MountedPage } from '../core/src/http/page.ts';
import type { AnyRoute } from '../core/src/http/route.ts';
import type { RouteTable } from '../core/src/http/route-table.ts';
import { withComposedApp } from './openapi.ts';

/**
 * `npm run docs:routes`: every entry point of the service as a markdown table, read from the
 * app's tables (the declared routes of the two APIs and of `/connectors/...`, and the declared
 * pages), so the list cannot miss one: method, path, who calls it, its scope or CSRF defence,
 * and what limits it.
 */
export async function routeList(): Promise<string> {
  return withComposedApp((app) => {
    const tables: Array<[string, RouteTable<AnyRoute> | undefined]> = [
      [API_BASE, app.locals.apiRoutes],
      [ADMIN_BASE, app.locals.adminRoutes],
      ['', app.locals.rootRoutes],
    ];
    const routes = tables.flatMap(([base, table]) =>
      (table?.routes ?? []).map((r) => row(r.method, `${base}${r.path}`, r.auth, r.scope ? `scope ${r.scope}` : '', r.auth === 'apiKey' ? 'rate-limit' : '')),
    );
    const pages = (app.locals.pages as MountedPage[]).map((p) => row(p.method, p.path, p.auth, p.csrf === 'none' ? '' : `CSRF ${p.csrf}`, p.limit ?? ''));
    return ['| method | path | caller | scope / CSRF | limit |', '|---|---|---|---|---|', ...routes, ...pages].join('\n');
  });
}

function row(method: string, path: string, caller: string, guard: string, limit: string): string {
  return `| ${method.toUpperCase()} | \`${path}\` | ${caller} | ${guard} | ${limit} |`;
}

if (import.meta.main) process.stdout.write(`${await routeList()}\n`);
