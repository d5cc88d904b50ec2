import { html, type VNode } from '../../web/html.ts';

const W = 240;
const H = 48;

/**
 * A small bar chart of the last 24 hours, server-rendered SVG (no script): one bar per hour,
 * the threshold its alert fires at as a dashed line, the bars over it in red. Its title and
 * `aria-label` say the last value and whether it is over, so that it reads without the picture.
 */
export function HourChart(props: {
  label: string;
  values: number[];
  /** The alert's threshold: a value above it is over (none: no line). */
  threshold?: number | undefined;
  /** How a value reads (`12 s`, `0.4/min`). */
  format: (v: number) => string;
  testId?: string;
}): VNode {
  const { values, threshold } = props;
  const max = Math.max(...values, threshold ?? 0, 1e-9) * 1.1;
  const bw = W / values.length;
  const y = (v: number) => H - (v / max) * H;
  const over = (v: number) => threshold !== undefined && v > threshold;
  const last = values.at(-1) ?? 0;
  const anyOver = values.some(over);
  const summary = `${props.label}: ${props.format(last)} in the last hour, at most ${props.format(Math.max(...values))} in 24 h${
    threshold === undefined ? '' : `; alert above ${props.format(threshold)}${anyOver ? ' — OVER' : ''}`
  }`;
  return html`<figure class=${`chart${anyOver ? ' over' : ''}`} data-testid=${props.testId} data-over=${anyOver ? 'true' : 'false'}>
    <svg viewBox=${`0 0 ${W} ${H}`} width=${W} height=${H} role="img" aria-label=${summary} xmlns="http://www.w3.org/2000/svg">
      <title>${summary}</title>
      <rect x="0" y="0" width=${W} height=${H} fill="none" stroke="currentColor" stroke-opacity="0.15" />
      ${values.map((v, i) =>
        v > 0
          ? html`<rect x=${(i * bw + 1).toFixed(1)} y=${y(v).toFixed(1)} width=${Math.max(bw - 2, 1).toFixed(1)} height=${(H - y(v)).toFixed(1)} fill=${over(v) ? '#c62828' : '#2e7d32'} data-over=${over(v) ? 'true' : undefined} />`
          : null,
      )}
      ${
        threshold === undefined
          ? null
          : html`<line x1="0" x2=${W} y1=${y(threshold).toFixed(1)} y2=${y(threshold).toFixed(1)} stroke="#c62828" stroke-dasharray="4 3" data-threshold=${String(threshold)} />`
      }
    </svg>
    <figcaption>${props.label}: <strong>${props.format(last)}</strong>${threshold === undefined ? null : html` <span class="muted">(alert above ${props.format(threshold)})</span>`}</figcaption>
  </figure>`;
}

export const perMinute = (v: number): string => `${v < 10 ? v.toFixed(v === 0 ? 0 : 2) : Math.round(v)}/min`;
export const seconds = (v: number): string => (v >= 120 ? `${Math.round(v / 60)} min` : `${Math.round(v)} s`);
export const count = (v: number): string => String(Math.round(v));
export const share = (v: number): string => `${Math.round(v * 100)} %`;
