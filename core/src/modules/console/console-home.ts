import { html, type VNode } from '../../web/html.ts';
import { count, HourChart, perMinute, seconds, share } from './console-charts.ts';
import { HOURS, troubleOf, type DeadJobs, type Overview } from './console-overview.ts';
import type { PlatformName } from '../code-words.ts';

export const CHART_CSS = `
.platforms{display:grid;gap:1rem;grid-template-columns:repeat(auto-fill,minmax(16.5rem,1fr))}
.platform{border:1px solid var(--line);border-radius:6px;padding:.6rem .8rem}.platform.trouble{border-color:var(--bad);border-width:2px}
.platform h3{margin:.1rem 0 .4rem;font-size:1rem}figure.chart{margin:.3rem 0}figure.chart figcaption{font-size:12px}
figure.chart svg{display:block;max-width:100%;height:auto}.verdict{font-size:1.1rem;padding:.5rem .8rem;border-left:4px solid var(--ok)}
.verdict.bad{border-left-color:var(--bad)}
`;

/**
 * The console's home page: "is anything wrong?" at a glance. A verdict first (which platforms
 * are over an alert's threshold, and why), then per platform its last 24 hours (store orders
 * per minute, ingest lag, stores falling behind), the webhook deliveries to resellers and the
 * dead jobs, each marked against the threshold `ops/alerts.yml` alerts on.
 */
export function ConsoleHome(props: { overview: Overview; platformName: PlatformName }): VNode {
  const { overview: o, platformName } = props;
  const t = o.thresholds;
  const troubled = o.platforms.map((p) => ({ p, why: troubleOf(p, t) })).filter((x) => x.why.length > 0);
  const failedShare = o.deliveries.failed.map((f, i) =>
    f >= t.failedDeliveriesAtLeast ? f / Math.max(o.deliveries.all[i]!, 1) : 0,
  );
  const deliveriesOver = failedShare.at(-1)! > t.failedDeliveryShare;
  const dead = o.deadJobs.filter((q) => (q.failed ?? 0) > t.deadJobs);
  const problems = [
    ...troubled.map(({ p, why }) => `${platformName(p.platform)}: ${why.join(', ')}`),
    ...(deliveriesOver ? ['webhook deliveries to resellers are failing'] : []),
    ...dead.map((q) => `${q.failed} dead job${q.failed === 1 ? '' : 's'} in queue ${q.queue}`),
  ];
  return html`<style>${CHART_CSS}</style>
    <p class=${`verdict${problems.length ? ' bad' : ''}`} role="status" data-testid="verdict">${
      problems.length === 0
        ? 'Nothing is wrong: every platform, the webhook deliveries and the queues are within their alert thresholds.'
        : html`Needs attention: ${problems.join('; ')}.`
    }</p>
    <section aria-labelledby="platforms-h">
      <h2 id="platforms-h">Platforms, last 24 hours</h2>
      <div class="platforms">
        ${o.platforms.map((p) => {
          const why = troubleOf(p, t);
          return html`<section class=${`platform${why.length ? ' trouble' : ''}`} data-platform=${p.platform} data-trouble=${why.length ? 'true' : 'false'} aria-label=${`${platformName(p.platform)}${why.length ? ' (needs attention)' : ''}`}>
            <h3><a href=${`/admin/stores?platform=${encodeURIComponent(p.platform)}`}>${platformName(p.platform)}</a> <span class="muted">${p.now?.connected ?? 0} connected</span></h3>
            ${why.length ? html`<p class="error">${why.join('; ')}</p>` : null}
            <${HourChart} label="Store orders" values=${p.ordersPerMinute} format=${perMinute} testId=${`orders-${p.platform}`} />
            <${HourChart} label="Ingest lag" values=${p.ingestLagSeconds} threshold=${t.ingestLagSeconds} format=${seconds} testId=${`lag-${p.platform}`} />
            <${HourChart} label="Stores falling behind" values=${p.storesBehind} threshold=${t.storesBehind} format=${count} testId=${`behind-${p.platform}`} />
          </section>`;
        })}
      </div>
    </section>
    <section aria-labelledby="deliveries-h">
      <h2 id="deliveries-h">Webhook deliveries to resellers</h2>
      <${HourChart} label="Failed share of attempts" values=${failedShare} threshold=${t.failedDeliveryShare} format=${share} testId="deliveries" />
      <p class="muted">An hour counts once at least ${t.failedDeliveriesAtLeast} attempts failed (WebhookDeliveriesFailing). ${o.deliveries.failed.reduce((a, b) => a + b, 0)} of ${o.deliveries.all.reduce((a, b) => a + b, 0)} attempts failed in 24 h.</p>
    </section>
    <${DeadJobsSection} deadJobs=${o.deadJobs} threshold=${t.deadJobs} />
    <p class="muted" data-testid="thresholds-source">Thresholds from ${t.source}: ingest lag over ${seconds(t.ingestLagSeconds)}, stores falling behind over ${t.storesBehind}, failed store orders over ${share(t.failedOrderShare)} (at least ${t.failedOrdersAtLeast}), failed deliveries over ${share(t.failedDeliveryShare)} (at least ${t.failedDeliveriesAtLeast}), dead jobs over ${t.deadJobs}.</p>`;
}

/**
 * The dead jobs (failed for good) of the last 24 hours: all queues together by the hour they
 * failed, then a chart per queue that has any (now, or failed in the window) marked against the
 * DeadJobs alert's threshold (per queue), with how many it holds now; the quiet queues in one line.
 */
function DeadJobsSection(props: { deadJobs: DeadJobs[]; threshold: number }): VNode {
  const { deadJobs, threshold } = props;
  const total = Array.from({ length: HOURS }, (_, h) => deadJobs.reduce((sum, q) => sum + (q.perHour?.[h] ?? 0), 0));
  const shown = deadJobs.filter((q) => q.failed !== 0 || q.perHour === null || q.perHour.some((n) => n > 0));
  const quiet = deadJobs.length - shown.length;
  return html`<section aria-labelledby="jobs-h">
    <h2 id="jobs-h">Dead jobs</h2>
    <${HourChart} label="Jobs that failed for good, all queues" values=${total} format=${count} testId="dead-jobs-all" />
    <div class="platforms" data-testid="dead-jobs">${shown.map((q) => {
      const over = (q.failed ?? 0) > threshold;
      return html`<section class=${`platform${over ? ' trouble' : ''}`} data-queue=${q.queue} data-over=${over ? 'true' : 'false'} aria-label=${`Queue ${q.queue}`}>
        <h3>${q.queue} <span class="muted">${q.failed === null ? 'not answering' : html`<strong class=${over ? 'error' : ''}>${q.failed}</strong> dead now`}</span></h3>
        ${q.perHour ? html`<${HourChart} label="Failed for good" values=${q.perHour} threshold=${threshold} format=${count} testId=${`dead-${q.queue}`} />` : null}
      </section>`;
    })}</div>
    <p class="muted">${shown.length === 0 ? `No dead job in any of the ${quiet} queues.` : quiet > 0 ? `No dead job in the ${quiet} other queues.` : ''} Alert above ${threshold} per queue (DeadJobs): retry or remove them on the <a href="/admin/v1/queues">queue dashboard</a>.</p>
  </section>`;
}
