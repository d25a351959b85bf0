/**
 * The monitoring home's pictures as SVG made by the server (no script, no library, nothing fetched:
 * works offline and without JavaScript): throughput in/out over the last hour, transfers per minute
 * by status, errors by partner and by rule. Each picture is `role="img"` with a text summary, and
 * carries its figures as data attributes (what the tests read). Colours come from the stylesheet.
 */
import type { Bar, ChartFigures, MinuteCounts, ThroughputPoint } from './chart-data.js';
import { html, Html } from './html.js';
import type { Translate } from './i18n.js';

const W = 600;
const H = 160;
const PAD = { left: 64, right: 8, top: 8, bottom: 20 };
const HOUR = 3_600_000;
const STATUSES = ['done', 'error', 'running', 'other'] as const;

const rate = (b: number): string => (b >= 1_048_576 ? `${(b / 1_048_576).toFixed(1)} MB/s` : b >= 1024 ? `${(b / 1024).toFixed(1)} KB/s` : `${Math.round(b)} B/s`);
const num = (v: number): string => v.toFixed(1);

/** The frame of a time chart: y axis max label, x axis from an hour ago to now. */
function timeAxes(maxLabel: string, t: Translate): Html {
  const y0 = H - PAD.bottom;
  return html`<line class="axis" x1="${PAD.left}" y1="${y0}" x2="${W - PAD.right}" y2="${y0}"/><line class="axis" x1="${PAD.left}" y1="${PAD.top}" x2="${PAD.left}" y2="${y0}"/>
<text x="${PAD.left - 4}" y="${PAD.top + 8}" text-anchor="end">${maxLabel}</text><text x="${PAD.left - 4}" y="${y0}" text-anchor="end">0</text>
<text x="${PAD.left}" y="${H - 4}">${t('chartHourAgo')}</text><text x="${W - PAD.right}" y="${H - 4}" text-anchor="end">${t('chartNow')}</text>`;
}

function svg(label: string, data: Record<string, string>, body: Html, height = H): Html {
  const attrs = Object.entries(data).map(([k, v]) => html` data-${k}="${v}"`);
  return html`<svg class="chart" viewBox="0 0 ${W} ${height}" role="img" aria-label="${label}"${attrs}><title>${label}</title>${body}</svg>`;
}

export function throughputChart(points: ThroughputPoint[], now: number, t: Translate): Html {
  const peakIn = Math.max(0, ...points.map((p) => p.in));
  const peakOut = Math.max(0, ...points.map((p) => p.out));
  const max = Math.max(1024, peakIn, peakOut);
  const x = (at: number): number => PAD.left + ((at - (now - HOUR)) / HOUR) * (W - PAD.left - PAD.right);
  const y = (v: number): number => H - PAD.bottom - (v / max) * (H - PAD.top - PAD.bottom);
  const line = (pick: (p: ThroughputPoint) => number): string => points.map((p) => `${num(x(p.at))},${num(y(pick(p)))}`).join(' ');
  const label = `${t('chartThroughput')}: ${t('chartPeakIn')} ${rate(peakIn)}, ${t('chartPeakOut')} ${rate(peakOut)}`;
  return svg(label, { 'peak-in': String(Math.round(peakIn)), 'peak-out': String(Math.round(peakOut)), samples: String(points.length) }, html`${timeAxes(rate(max), t)}
<polyline class="in" points="${line((p) => p.in)}"/><polyline class="out" points="${line((p) => p.out)}"/>`);
}

export function perMinuteChart(minutes: MinuteCounts[], now: number, t: Translate): Html {
  const max = Math.max(1, ...minutes.map((m) => m.done + m.error + m.running + m.other));
  const slot = (W - PAD.left - PAD.right) / 60;
  const scale = (H - PAD.top - PAD.bottom) / max;
  const bars = minutes.map((m) => {
    const x = PAD.left + ((m.at - (now - HOUR)) / HOUR) * (W - PAD.left - PAD.right);
    let top = H - PAD.bottom;
    return STATUSES.filter((s) => m[s] > 0).map((s) => {
      const h = m[s] * scale;
      top -= h;
      return html`<rect class="${s}" x="${num(x)}" y="${num(top)}" width="${num(Math.max(1, slot - 1))}" height="${num(h)}"><title>${new Date(m.at).toTimeString().slice(0, 5)} ${t(`chart_${s}`)}: ${m[s]}</title></rect>`;
    });
  });
  const totals = Object.fromEntries(STATUSES.map((s) => [s, String(minutes.reduce((n, m) => n + m[s], 0))]));
  const label = `${t('chartPerMinute')}: ${STATUSES.map((s) => `${t(`chart_${s}`)} ${totals[s]}`).join(', ')}`;
  return svg(label, totals, html`${timeAxes(String(max), t)}${bars}`);
}

export function barsChart(title: string, bars: Bar[], t: Translate): Html {
  const row = 20;
  const height = Math.max(1, bars.length) * row + 8;
  const max = Math.max(1, ...bars.map((b) => b.count));
  const labelW = 160;
  const body = bars.length === 0 ? html`<text x="4" y="18">${t('chartNoErrors')}</text>`
    : html`${bars.map((b, i) => html`<text x="${labelW - 4}" y="${i * row + 18}" text-anchor="end">${b.label}</text><rect class="error" x="${labelW}" y="${i * row + 6}" width="${num(((W - labelW - 48) * b.count) / max)}" height="${row - 6}"/><text x="${num(labelW + ((W - labelW - 48) * b.count) / max + 4)}" y="${i * row + 18}">${b.count}</text>`)}`;
  const label = `${title}: ${bars.map((b) => `${b.label} ${b.count}`).join(', ') || t('chartNoErrors')}`;
  return svg(label, { bars: bars.map((b) => `${b.label}=${b.count}`).join(',') }, body, height);
}

/** The four pictures of the home page, with a legend. */
export function chartsPanel(f: ChartFigures, t: Translate): Html {
  const legend = (items: Array<[string, string]>): Html => html`<p class="legend">${items.map(([cls, text]) => html`<span><i class="${cls}"></i>${text}</span>`)}</p>`;
  return html`<div class="charts">
<figure><figcaption>${t('chartThroughput')}</figcaption>${throughputChart(f.throughput, f.now, t)}${legend([['in', t('chartIn')], ['out', t('chartOut')]])}</figure>
<figure><figcaption>${t('chartPerMinute')}</figcaption>${perMinuteChart(f.perMinute, f.now, t)}${legend(STATUSES.map((s) => [s, t(`chart_${s}`)]))}</figure>
<figure><figcaption>${t('chartErrorsPartner')}</figcaption>${barsChart(t('chartErrorsPartner'), f.errorsByPartner, t)}</figure>
<figure><figcaption>${t('chartErrorsRule')}</figcaption>${barsChart(t('chartErrorsRule'), f.errorsByRule, t)}</figure>
</div>`;
}
