// A small horizontal bar chart as inline SVG: labelled for screen readers, coloured by the stylesheet (no inline
// style, so the CSP needs no exception), with each bar's value written beside it.
import { type Html, html } from './html.js';

export interface Bar {
  label: string;
  value: number;
}

const LABEL_W = 120;
const BAR_MAX = 300;
const ROW_H = 26;

export function barChart(id: string, title: string, bars: readonly Bar[]): Html {
  const max = Math.max(1, ...bars.map((b) => b.value));
  const height = bars.length * ROW_H + 8;
  const rows = bars.map((b, i) => {
    const y = i * ROW_H + 4;
    const w = b.value === 0 ? 0 : Math.max(2, Math.round((b.value / max) * BAR_MAX));
    return html`<g><title>${b.label}: ${b.value}</title>
<text x="${LABEL_W - 8}" y="${y + 15}" text-anchor="end" class="chart-label">${b.label}</text>
<rect x="${LABEL_W}" y="${y + 2}" width="${w}" height="${ROW_H - 8}" class="chart-bar"></rect>
<text x="${LABEL_W + w + 6}" y="${y + 15}" class="chart-value">${b.value}</text></g>`;
  });
  const summary = bars.map((b) => `${b.label} ${b.value}`).join(', ');
  return html`<figure class="chart"><svg role="img" aria-labelledby="${id}-t ${id}-d" viewBox="0 0 ${LABEL_W + BAR_MAX + 60} ${height}" width="${LABEL_W + BAR_MAX + 60}" height="${height}" xmlns="http://www.w3.org/2000/svg">
<title id="${id}-t">${title}</title><desc id="${id}-d">${summary}</desc>${rows}</svg><figcaption>${title}</figcaption></figure>`;
}
