// Small DOM helpers. Every text from the API goes in as a text node, never as HTML.

const SVG_NS = 'http://www.w3.org/2000/svg';

function apply(el, attrs) {
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key === 'on') {
      for (const [event, handler] of Object.entries(value)) el.addEventListener(event, handler);
    } else if (key === 'class') {
      el.setAttribute('class', Array.isArray(value) ? value.filter(Boolean).join(' ') : value);
    } else if (key === 'text') {
      el.textContent = String(value);
    } else if (key === 'dataset') {
      Object.assign(el.dataset, value);
    } else if (key === 'value' || key === 'checked' || key === 'selected') {
      el[key] = value;
    } else if (key === 'style') {
      throw new Error('inline style attributes are refused by the content security policy');
    } else {
      el.setAttribute(key, value === true ? '' : String(value));
    }
  }
}

function append(el, children) {
  for (const child of children.flat(Infinity)) {
    if (child === undefined || child === null || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

/** An HTML element: h('button', {class: 'x', on: {click}}, 'Text'). */
export function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  apply(el, attrs);
  append(el, children);
  return el;
}

/** An SVG element. */
export function s(tag, attrs, ...children) {
  const el = document.createElementNS(SVG_NS, tag);
  apply(el, attrs);
  append(el, children);
  return el;
}

/** Replaces the children of el. */
export function fill(el, ...children) {
  el.replaceChildren();
  append(el, children);
  return el;
}

let uid = 0;
/** A unique id for label/input pairs. */
export function id(prefix = 'f') {
  uid += 1;
  return `${prefix}-${uid}`;
}

/** A labelled form field: returns {wrap, input}. */
export function field(label, input, hint) {
  const inputId = input.id || id('field');
  input.id = inputId;
  const hintEl = hint ? h('span', {class: 'hint', id: `${inputId}-hint`}, hint) : null;
  if (hintEl) input.setAttribute('aria-describedby', hintEl.id);
  const wrap = h('div', {class: 'field'}, h('label', {for: inputId}, label), input, hintEl);
  return {wrap, input};
}

/** A select with options [[value, label], ...]. */
export function select(options, value, attrs = {}) {
  const el = h('select', attrs,
    options.map(([v, l]) => h('option', {value: v, selected: v === value}, l)));
  el.value = value ?? '';
  return el;
}

/** A short date-time text of an ISO instant, or a dash. */
export function when(iso) {
  if (!iso) return '—';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return String(iso);
  return d.toISOString().replace('T', ' ').replace(/\.\d+Z$/, 'Z').replace(/:\d\dZ$/, 'Z');
}

/** A number with at most `digits` decimals. */
export function num(value, digits = 3) {
  if (value === undefined || value === null || value === '') return '—';
  const n = Number(value);
  if (!Number.isFinite(n)) return String(value);
  return Number.isInteger(n) ? String(n) : n.toFixed(digits);
}

/** A definition list of [term, value] pairs, skipping empty values. */
export function dl(pairs, cls = 'facts') {
  return h('dl', {class: cls},
    pairs.filter(([, v]) => v !== undefined && v !== null && v !== '')
      .map(([k, v]) => [h('dt', {}, k), h('dd', {}, v)]));
}

/** A badge (status, type, scope...). */
export function badge(text, kind = '') {
  return h('span', {class: ['badge', kind && `badge-${kind}`]}, text);
}

/** A section with a heading of the given level. */
export function section(title, level = 2, ...children) {
  const headingId = id('h');
  return h('section', {class: 'panel', 'aria-labelledby': headingId},
    h(`h${level}`, {id: headingId}, title), ...children);
}

/** A scrollable wrapper that keyboard users can reach (for wide tables). */
export function scroller(label, child) {
  return h('div', {class: 'scroller', tabindex: '0', role: 'region', 'aria-label': label}, child);
}

/** A table of rows; columns [[header, row => cell], ...]. */
export function table(caption, columns, rows) {
  return scroller(`${caption} (table)`, h('table', {},
    h('caption', {class: 'visually-hidden'}, caption),
    h('thead', {}, h('tr', {}, columns.map(([head]) => h('th', {scope: 'col'}, head)))),
    h('tbody', {}, rows.map((row) => h('tr', {}, columns.map(([, cell]) => h('td', {}, cell(row))))))));
}

/** A paragraph for an empty state or a message. */
export function note(text, kind = 'muted') {
  return h('p', {class: kind}, text);
}
