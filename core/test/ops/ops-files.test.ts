import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { startTestService, type TestService } from '../helpers/test-service.ts';

const OPS = path.resolve(import.meta.dirname, '../../../ops');

/** PromQL words that are not metric names. */
const PROMQL = new Set([
  'sum',
  'min',
  'max',
  'avg',
  'count',
  'by',
  'without',
  'on',
  'ignoring',
  'group_left',
  'group_right',
  'and',
  'or',
  'unless',
  'offset',
  'bool',
  'rate',
  'irate',
  'increase',
  'delta',
  'idelta',
  'deriv',
  'histogram_quantile',
  'clamp_min',
  'clamp_max',
  'abs',
  'absent',
  'time',
  'vector',
  'scalar',
  'label_values',
  'topk',
  'bottomk',
  'quantile',
  'avg_over_time',
  'max_over_time',
  'min_over_time',
  'sum_over_time',
  'e',
  'inf',
  'nan',
]);

/** The metric names a PromQL expression reads. */
export function metricNames(expr: string): string[] {
  const bare = expr
    .replace(/"(?:[^"\\]|\\.)*"/g, '""') // label values
    .replace(/\{[^}]*\}/g, '') // label matchers
    .replace(/\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, '') // grouping labels
    .replace(/\[[^\]]*\]/g, '') // ranges
    .replace(/\$\w+/g, ''); // Grafana variables
  const names = new Set<string>();
  for (const m of bare.matchAll(/[A-Za-z_:][A-Za-z0-9_:]*/g)) {
    const word = m[0];
    const after = bare.slice(m.index + word.length).trimStart();
    if (PROMQL.has(word.toLowerCase()) || after.startsWith('(')) continue;
    if (/^\d/.test(word)) continue;
    names.add(word);
  }
  return [...names];
}

/** The `expr` of every rule of a Prometheus rules file (single-line and `|` blocks). */
export function ruleExpressions(yaml: string): string[] {
  const lines = yaml.split('\n');
  const exprs: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    const m = /^(\s*)expr:\s*(.*)$/.exec(lines[i]!);
    if (!m) continue;
    if (m[2]!.trim() !== '|' && m[2]!.trim() !== '>') {
      exprs.push(m[2]!);
      continue;
    }
    const block: string[] = [];
    const indent = m[1]!.length;
    while (i + 1 < lines.length && (lines[i + 1]!.trim() === '' || lines[i + 1]!.search(/\S/) > indent))
      block.push(lines[++i]!);
    exprs.push(block.join('\n'));
  }
  return exprs;
}

/** Names a scrape of `/metrics` defines (histograms and summaries with their series suffixes). */
function exportedNames(text: string): Set<string> {
  const names = new Set<string>();
  for (const m of text.matchAll(/^# TYPE (\S+) (\S+)$/gm)) {
    names.add(m[1]!);
    if (m[2] === 'histogram') for (const s of ['_bucket', '_sum', '_count']) names.add(`${m[1]}${s}`);
    if (m[2] === 'summary') for (const s of ['_sum', '_count']) names.add(`${m[1]}${s}`);
  }
  return names;
}

describe('ops: example alert rules and Grafana dashboard name only metrics the service exports', function () {
  let t: TestService;
  let exported: Set<string>;
  before(async function () {
    t = await startTestService(this, 'pglite');
    exported = exportedNames(await (await fetch(`${t.baseUrl}/metrics`)).text());
  });
  after(() => t?.close());

  it('reads the metric names of an expression', () => {
    expect(
      metricNames(
        'sum by (platform) (rate(connector_http_requests_total{status=~"5..|timeout"}[10m])) / clamp_min(sum(x_total), 1) > 0.25',
      ),
    ).to.deep.equal(['connector_http_requests_total', 'x_total']);
    expect(
      metricNames('histogram_quantile(0.95, sum by (le, platform) (rate(a_bucket{platform=~"$platform"}[15m])))'),
    ).to.deep.equal(['a_bucket']);
  });

  it('ops/alerts.yml: ingest lag, failing deliveries, dead jobs and token expiry, on exported metrics', () => {
    const yaml = readFileSync(path.join(OPS, 'alerts.yml'), 'utf8');
    const alerts = [...yaml.matchAll(/^\s*- alert: (\S+)/gm)].map((m) => m[1]);
    expect(alerts).to.include.members([
      'StoreIngestLag',
      'WebhookDeliveriesFailing',
      'DeadJobs',
      'StoreTokenExpiringSoon',
    ]);
    const exprs = ruleExpressions(yaml);
    expect(exprs).to.have.length(alerts.length);
    const named = new Set(exprs.flatMap(metricNames));
    expect([...named]).to.include.members([
      'store_ingest_lag_seconds',
      'webhook_delivery_attempts_1h',
      'queue_jobs',
      'store_token_expiry_seconds',
    ]);
    expect(
      [...named].filter((n) => !exported.has(n)),
      'metrics the alerts name that /metrics does not export',
    ).to.deep.equal([]);
  });

  it('ops/grafana-dashboard.json: every panel query reads exported metrics', () => {
    const dashboard = JSON.parse(readFileSync(path.join(OPS, 'grafana-dashboard.json'), 'utf8')) as {
      panels: Array<{ title: string; targets: Array<{ expr: string }> }>;
      templating: { list: Array<{ query?: string }> };
    };
    expect(dashboard.panels.length).to.be.greaterThan(5);
    const exprs = [
      ...dashboard.panels.flatMap((p) => p.targets.map((x) => x.expr)),
      ...dashboard.templating.list.flatMap((v) =>
        v.query?.includes('(') ? [v.query.replace(/^label_values\(([^,]+),.*$/, '$1')] : [],
      ),
    ];
    const named = new Set(exprs.flatMap(metricNames));
    expect(named.size).to.be.greaterThan(8);
    expect(
      [...named].filter((n) => !exported.has(n)),
      'metrics the dashboard names that /metrics does not export',
    ).to.deep.equal([]);
  });
});
