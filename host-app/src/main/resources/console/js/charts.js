// Small line charts drawn as inline SVG (no library, no inline script or style).

import {h, s, id} from './dom.js';

const W = 320;
const H = 120;
const PAD = {left: 38, right: 10, top: 12, bottom: 22};

function clock(date) {
  return date.toISOString().slice(11, 16);
}

function short(value) {
  if (Math.abs(value) >= 1000) return `${(value / 1000).toFixed(value >= 10000 ? 0 : 1)}k`;
  return Number.isInteger(value) ? String(value) : value.toFixed(1);
}

/**
 * A line chart of points [{at: Date, value: number}] with its title as a heading and a text
 * summary for screen readers.
 */
export function lineChart(title, points, unit = '') {
  const titleId = id('chart');
  const figure = h('figure', {class: 'chart'});
  const caption = h('figcaption', {id: titleId}, title);
  if (points.length === 0) {
    figure.append(caption, h('p', {class: 'muted'}, 'No sample yet.'));
    return figure;
  }
  const values = points.map((p) => p.value);
  const max = Math.max(1, ...values);
  const min = Math.min(0, ...values);
  const t0 = points[0].at.getTime();
  const t1 = Math.max(t0 + 1, points[points.length - 1].at.getTime());
  const x = (t) => PAD.left + ((t - t0) / (t1 - t0)) * (W - PAD.left - PAD.right);
  const y = (v) => PAD.top + (1 - (v - min) / (max - min || 1)) * (H - PAD.top - PAD.bottom);
  const coords = points.map((p) => `${x(p.at.getTime()).toFixed(1)},${y(p.value).toFixed(1)}`);
  const last = points[points.length - 1];
  const summary = `${title}: from ${short(points[0].value)} to ${short(last.value)}${unit}, highest ${short(max)}${unit}, `
    + `${clock(points[0].at)} to ${clock(last.at)} UTC, ${points.length} samples`;
  const svg = s('svg', {viewBox: `0 0 ${W} ${H}`, role: 'img', 'aria-labelledby': `${titleId} ${titleId}-desc`, class: 'chart-svg'},
    s('desc', {id: `${titleId}-desc`}, summary),
    s('line', {x1: PAD.left, x2: W - PAD.right, y1: y(min), y2: y(min), class: 'axis'}),
    s('line', {x1: PAD.left, x2: PAD.left, y1: PAD.top, y2: H - PAD.bottom, class: 'axis'}),
    s('line', {x1: PAD.left, x2: W - PAD.right, y1: y(max), y2: y(max), class: 'grid'}),
    s('text', {x: PAD.left - 4, y: y(max) + 4, class: 'tick', 'text-anchor': 'end'}, short(max)),
    s('text', {x: PAD.left - 4, y: y(min) + 4, class: 'tick', 'text-anchor': 'end'}, short(min)),
    s('text', {x: PAD.left, y: H - 6, class: 'tick'}, clock(points[0].at)),
    s('text', {x: W - PAD.right, y: H - 6, class: 'tick', 'text-anchor': 'end'}, clock(last.at)),
    s('polygon', {points: `${x(t0).toFixed(1)},${y(min).toFixed(1)} ${coords.join(' ')} ${x(last.at.getTime()).toFixed(1)},${y(min).toFixed(1)}`, class: 'area'}),
    s('polyline', {points: coords.join(' '), class: 'line'}),
    s('circle', {cx: x(last.at.getTime()), cy: y(last.value), r: 3, class: 'dot'}));
  figure.append(caption, svg, h('p', {class: 'chart-now'}, `now ${short(last.value)}${unit}`));
  return figure;
}

/**
 * Per-minute rates of counts taken per sample interval (deliveries, turns): each count over the
 * minutes until the next sample (the last one over the interval before it).
 */
export function perMinute(points) {
  return points.map((p, i) => {
    const next = points[i + 1];
    const previous = points[i - 1];
    const gap = next ? next.at - p.at : previous ? p.at - previous.at : 60000;
    return {at: p.at, value: p.value / Math.max(1 / 60, gap / 60000)};
  });
}

/** Horizontal bars of a {name: count} map. */
export function countBars(title, counts) {
  const entries = Object.entries(counts || {}).sort((a, b) => b[1] - a[1]);
  const max = Math.max(1, ...entries.map(([, n]) => n));
  return h('figure', {class: 'count-bars'},
    h('figcaption', {}, title),
    entries.length === 0 ? h('p', {class: 'muted'}, 'None.') : h('ul', {class: 'signals'}, entries.map(([name, n]) => {
      const fill = h('span', {class: 'bar-fill'});
      fill.style.width = `${Math.round((n / max) * 100)}%`;
      return h('li', {class: 'signal'}, h('span', {class: 'signal-name'}, name),
        h('span', {class: 'bar', role: 'img', 'aria-label': `${name}: ${n}`}, fill),
        h('span', {class: 'signal-value'}, String(n)));
    })));
}
