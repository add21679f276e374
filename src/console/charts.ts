import { h, svg, uid } from './dom.js';

/**
 * Charts drawn as SVG (no chart library): bars for one series over days, lines for several. Each chart is an image
 * with a text alternative; the numbers themselves are in the table beside it. Sizes come from the viewBox; CSS
 * scales the chart to its column. Colours are CSS classes (series-0…5), so the stylesheet owns them.
 */
const W = 720;
const H = 260;
const PAD = { top: 16, right: 16, bottom: 40, left: 56 };

export interface Series {
  name: string;
  values: number[];
}

/** Round axis maximum and tick step for values up to `max`. */
function ticks(max: number): { top: number; step: number } {
  if (max <= 0) return { top: 1, step: 1 };
  const raw = max / 4;
  const mag = 10 ** Math.floor(Math.log10(raw));
  // Whole steps: every charted quantity is a count (captures, milliseconds, bytes).
  const step = Math.max(1, [1, 2, 5, 10].map((m) => m * mag).find((s) => s >= raw)!);
  return { top: Math.ceil(max / step) * step, step };
}

function frame(title: string, labels: string[], top: number, step: number, format: (n: number) => string) {
  const titleId = uid('chart-title');
  const root = svg('svg', {
    viewBox: `0 0 ${W} ${H}`,
    class: 'chart',
    role: 'img',
    'aria-labelledby': titleId,
    preserveAspectRatio: 'xMidYMid meet',
  });
  root.append(svg('title', { id: titleId }, title));
  const plotH = H - PAD.top - PAD.bottom;
  const y = (v: number) => PAD.top + plotH - (v / top) * plotH;
  for (let v = 0; v <= top + step / 2; v += step) {
    root.append(
      svg('line', { class: 'gridline', x1: PAD.left, x2: W - PAD.right, y1: y(v), y2: y(v) }),
      svg('text', { class: 'tick', x: PAD.left - 6, y: y(v) + 4, 'text-anchor': 'end' }, format(v)),
    );
  }
  const plotW = W - PAD.left - PAD.right;
  const slot = plotW / Math.max(1, labels.length);
  // At most ~12 x labels, so they never overlap.
  const every = Math.max(1, Math.ceil(labels.length / 12));
  labels.forEach((label, i) => {
    if (i % every !== 0) return;
    root.append(
      svg(
        'text',
        { class: 'tick', x: PAD.left + slot * (i + 0.5), y: H - PAD.bottom + 16, 'text-anchor': 'middle' },
        label,
      ),
    );
  });
  return { root, y, slot, plotH };
}

/** Bars of `series[0]`, with `series[1]` (e.g. failed) drawn over the lower part of each bar. */
export function barChart(title: string, labels: string[], series: Series[], format: (n: number) => string = String) {
  const max = Math.max(0, ...series.flatMap((s) => s.values));
  const { top, step } = ticks(max);
  const { root, y, slot } = frame(title, labels, top, step, format);
  // A bar is at most 48 units wide: one day of data is a bar, not a block across the chart.
  const barW = Math.min(48, Math.max(1, slot * 0.7));
  series.slice(0, 2).forEach((s, k) => {
    s.values.forEach((v, i) => {
      if (!v) return;
      const x = PAD.left + slot * i + (slot - barW) / 2;
      root.append(
        svg(
          'rect',
          { class: `bar series-${k}`, x, y: y(v), width: barW, height: Math.max(0, y(0) - y(v)) },
          svg('title', null, `${labels[i]}: ${format(v)} ${s.name}`),
        ),
      );
    });
  });
  return root;
}

/** One line per series. */
export function lineChart(title: string, labels: string[], series: Series[], format: (n: number) => string = String) {
  const max = Math.max(0, ...series.flatMap((s) => s.values.filter((v) => Number.isFinite(v))));
  const { top, step } = ticks(max);
  const { root, y, slot } = frame(title, labels, top, step, format);
  series.slice(0, 6).forEach((s, k) => {
    const points = s.values
      .map((v, i) => (Number.isFinite(v) ? `${PAD.left + slot * (i + 0.5)},${y(v)}` : null))
      .filter((p): p is string => p !== null);
    root.append(svg('polyline', { class: `line series-${k}`, points: points.join(' '), fill: 'none' }));
    s.values.forEach((v, i) => {
      if (!Number.isFinite(v)) return;
      root.append(
        svg(
          'circle',
          { class: `dot series-${k}`, cx: PAD.left + slot * (i + 0.5), cy: y(v), r: 3 },
          svg('title', null, `${labels[i]}: ${format(v)} ${s.name}`),
        ),
      );
    });
  });
  return root;
}

/** A legend for the series of a chart: swatches with the same classes as the marks. */
export function legend(series: Series[]): HTMLElement {
  return h(
    'ul',
    { class: 'legend' },
    series
      .slice(0, 6)
      .map((s, k) => h('li', null, h('span', { class: `swatch series-${k}`, 'aria-hidden': 'true' }), s.name)),
  );
}
