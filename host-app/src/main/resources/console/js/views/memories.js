// Memories one by one: the owner's memories with filters and server-side paging, a memory's
// detail and history, and the changes through the items routes (edit, archive, suppress,
// activate, delete).

import {h, fill, field, select, when, num, badge, dl, note, id} from '../dom.js';
import {get, patch, post, del, agentPath} from '../api.js';
import {session, canWrite} from '../state.js';
import {startView, loadInto, errorBox, act, confirmDialog, toast} from '../ui.js';

const STATUSES = ['active', 'archived', 'suppressed', 'superseded', 'pending'];
const TYPES = ['FACT', 'DECISION', 'PREFERENCE', 'TASK_PROGRESS', 'REFERENCE', 'RAW'];

/** Filters and page kept while the console is open. */
const state = {
  filters: {provider: '', scope: '', type: '', status: '', text: '', since: '', until: ''},
  offset: 0,
  limit: 20,
  selected: null,
  owner: null,
};

function itemsPath(...rest) {
  return agentPath(session.agent, 'memory/items', ...rest);
}

function baseParams() {
  return {ownerKey: session.owner, provider: state.filters.provider};
}

function listParams() {
  const f = state.filters;
  return {
    ...baseParams(), offset: state.offset, limit: state.limit, scope: f.scope, type: f.type,
    status: f.status, text: f.text, since: f.since, until: f.until,
  };
}

export async function render(root) {
  if (!startView(root, session, 'Memories', 'What the agent remembers about this owner, newest first. Filters and pages are applied by the host.')) return;
  if (state.owner !== `${session.agent}|${session.owner}`) {
    state.owner = `${session.agent}|${session.owner}`;
    state.offset = 0;
    state.selected = null;
  }
  const results = h('div', {class: 'results', id: 'memory-results'});
  const detail = h('div', {class: 'detail', id: 'memory-detail'});
  root.append(filterForm(() => loadList(results, detail)), h('div', {class: 'split'}, results, detail));
  await loadList(results, detail);
  if (state.selected) await loadDetail(detail, state.selected, results);
}

function filterForm(reload) {
  const f = state.filters;
  const providers = h('datalist', {id: 'memory-provider-list'});
  const inputs = {
    text: h('input', {type: 'search', name: 'text', value: f.text, autocomplete: 'off'}),
    status: select([['', 'every status'], ['any', 'any'], ...STATUSES.map((s) => [s, s])], f.status, {name: 'status'}),
    type: h('input', {name: 'type', list: 'memory-type-list', value: f.type, autocomplete: 'off'}),
    scope: select([['', 'every scope'], ['personal', 'personal'], ['team', 'team'], ['global', 'global']], f.scope, {name: 'scope'}),
    provider: h('input', {name: 'provider', list: 'memory-provider-list', value: f.provider, autocomplete: 'off',
      placeholder: 'default'}),
    since: h('input', {type: 'date', name: 'since', value: f.since}),
    until: h('input', {type: 'date', name: 'until', value: f.until}),
    limit: select([['10', '10'], ['20', '20'], ['50', '50'], ['100', '100']], String(state.limit), {name: 'limit'}),
  };
  const form = h('form', {class: 'filters', 'aria-label': 'Memory filters', on: {submit: (e) => {
    e.preventDefault();
    for (const key of Object.keys(f)) f[key] = inputs[key].value.trim();
    state.limit = Number(inputs.limit.value);
    state.offset = 0;
    reload();
  }}},
  field('Text', inputs.text, 'words the memory holds').wrap,
  field('Status', inputs.status).wrap,
  field('Type', inputs.type).wrap,
  field('Scope', inputs.scope).wrap,
  field('Provider', inputs.provider).wrap,
  field('Since', inputs.since).wrap,
  field('Until', inputs.until).wrap,
  field('Per page', inputs.limit).wrap,
  h('datalist', {id: 'memory-type-list'}, TYPES.map((t) => h('option', {value: t}))),
  providers,
  h('div', {class: 'row filter-actions'},
    h('button', {type: 'submit'}, 'Apply filters'),
    h('button', {type: 'button', class: 'secondary', on: {click: () => {
      for (const key of Object.keys(f)) f[key] = '';
      state.offset = 0;
      form.replaceWith(filterForm(reload));
      reload();
    }}}, 'Clear filters')));
  fillProviders(providers);
  return form;
}

async function fillProviders(list) {
  try {
    const page = await get(agentPath(session.agent, 'owners'), {q: session.owner, limit: 1});
    const owner = (page.owners || []).find((o) => o.ownerKey === session.owner);
    if (owner && owner.counts) fill(list, Object.keys(owner.counts).map((p) => h('option', {value: p})));
  } catch {
    // the owners route is optional here: the field stays free text
  }
}

async function loadList(results, detail) {
  const both = await loadInto(results, 'Memories', () => Promise.all([
    get(itemsPath(), listParams()),
    get(itemsPath('count'), {...listParams(), offset: undefined, limit: undefined}).catch(() => null),
  ]));
  if (!both) return;
  const [page, counts] = both;
  const items = page.items || [];
  const total = page.total ?? items.length;
  const summary = counts
    ? `${counts.total} memories: ${Object.entries(counts.byStatus || {}).map(([k, v]) => `${v} ${k}`).join(', ') || 'none'}`
    : `${total} memories`;
  fill(results,
    h('h2', {}, 'Results'),
    h('p', {class: 'muted', id: 'memory-summary'}, summary),
    items.length === 0 ? note('No memory matches these filters.') : null,
    h('ul', {class: 'cards', 'aria-label': 'Memories'}, items.map((item) => h('li', {class: ['card', state.selected === item.id && 'selected']},
      h('button', {type: 'button', class: 'card-open', 'data-id': item.id,
        'aria-label': `Open memory: ${item.text.slice(0, 80)}`,
        on: {click: () => {
          state.selected = item.id;
          for (const el of results.querySelectorAll('.card')) el.classList.remove('selected');
          results.querySelector(`[data-id="${CSS.escape(item.id)}"]`).parentElement.classList.add('selected');
          loadDetail(detail, item.id, results, true);
        }}}, item.text),
      h('div', {class: 'meta'}, badge(item.status, item.status), ' ', badge(item.type || '?', 'type'), ' ',
        badge(item.scope || '?', 'scope'), ' ', item.provider ? badge(item.provider, 'type') : '', ' ',
        h('span', {class: 'muted'}, `created ${when(item.createdAt)}`),
        trustBits(item))))),
    pager(total, items.length, () => loadList(results, detail)));
}

function trustBits(item) {
  const bits = [];
  if (item.importance !== undefined) bits.push(`importance ${num(item.importance, 2)}`);
  if (item.weight !== undefined) bits.push(`weight ${num(item.weight, 2)}`);
  if (item.trust !== undefined) bits.push(`trust ${num(item.trust, 2)}`);
  return bits.length ? h('span', {class: 'muted'}, ` · ${bits.join(' · ')}`) : null;
}

function pager(total, shown, reload) {
  const from = total === 0 ? 0 : state.offset + 1;
  const to = state.offset + shown;
  return h('nav', {class: 'pager', 'aria-label': 'Memory pages'},
    h('button', {type: 'button', class: 'secondary', disabled: state.offset <= 0, on: {click: () => {
      state.offset = Math.max(0, state.offset - state.limit);
      reload();
    }}}, 'Previous page'),
    h('span', {'aria-live': 'polite'}, `${from}–${to} of ${total}`),
    h('button', {type: 'button', class: 'secondary', disabled: to >= total, on: {click: () => {
      state.offset += state.limit;
      reload();
    }}}, 'Next page'));
}

async function loadDetail(detail, itemId, results, focus) {
  const both = await loadInto(detail, 'The memory', () => Promise.all([
    get(itemsPath(encodeURIComponent(itemId)), baseParams()),
    get(itemsPath(encodeURIComponent(itemId), 'history'), baseParams()),
  ]));
  if (!both) return;
  const [item, history] = both;
  const reload = () => Promise.all([
    loadList(results, detail),
    loadDetail(detail, itemId, results),
  ]);
  const errors = h('div', {class: 'errors'});
  const heading = h('h2', {tabindex: '-1', id: 'memory-detail-title'}, 'Memory');
  fill(detail,
    heading,
    h('blockquote', {class: 'memory-text'}, item.text),
    dl([
      ['Id', h('code', {}, item.id)],
      ['Status', badge(item.status, item.status)],
      ['Type', item.type],
      ['Scope', item.scope],
      ['Owner', item.owner],
      ['Importance', item.importance !== undefined ? num(item.importance, 3) : null],
      ['Weight', item.weight !== undefined ? num(item.weight, 3) : null],
      ['Trust', item.trust !== undefined ? num(item.trust, 3) : null],
      ['Created', when(item.createdAt)],
      ['Updated', when(item.updatedAt)],
      ['Source', item.source],
      ['Conversation', item.conversation],
      ['Turn', item.turn],
      ['Supersedes', item.supersedes ? [].concat(item.supersedes).join(', ') : null],
      ['Superseded by', item.supersededBy],
    ]),
    canWrite() ? actions(item, reload, errors) : note('This token reads only: no change is offered.'),
    errors,
    historyList(history));
  if (focus) heading.focus();
}

function actions(item, reload, errors) {
  const one = (...rest) => itemsPath(encodeURIComponent(item.id), ...rest);
  const status = (verb, label) => h('button', {type: 'button', class: 'secondary', on: {click: async (e) => {
    const done = await act(e.target, label, () => post(one(verb), undefined, baseParams()), errors);
    if (done) {
      toast(`${label}: the memory is ${done.status || verb}.`);
      await reload();
    }
  }}}, label);
  const editor = h('form', {class: 'stack edit-form', hidden: true, on: {submit: async (e) => {
    e.preventDefault();
    const button = editor.querySelector('button[type=submit]');
    button.disabled = true;
    errors.replaceChildren();
    try {
      const done = await patch(one(), {text: text.value, updatedAt: item.updatedAt}, baseParams());
      toast(done && done.changed === false ? 'Nothing changed.' : 'Saved: the memory has its new text.');
      await reload();
    } catch (error) {
      errors.append(errorBox(error, 'Save'));
      if (error.status === 409) {
        errors.append(h('p', {class: 'error'}, 'Someone changed this memory since you opened it: nothing was written. Reload it, then edit again.'),
          h('button', {type: 'button', class: 'secondary', on: {click: reload}}, 'Reload the memory'));
      }
    } finally {
      if (button.isConnected) button.disabled = false;
    }
  }}});
  const textId = id('edit-text');
  const text = h('textarea', {id: textId, rows: 4}, item.text);
  editor.append(h('label', {for: textId}, 'New text'), text,
    h('p', {class: 'hint'}, `Saved only if the memory is still as read at ${when(item.updatedAt)} (optimistic lock).`),
    h('div', {class: 'row'}, h('button', {type: 'submit'}, 'Save text'),
      h('button', {type: 'button', class: 'secondary', on: {click: () => {
        editor.hidden = true;
      }}}, 'Cancel')));
  const st = item.status;
  return h('div', {class: 'stack'},
    h('div', {class: 'row actions', role: 'group', 'aria-label': 'Change this memory'},
      h('button', {type: 'button', on: {click: () => {
        editor.hidden = false;
        text.focus();
      }}}, 'Edit'),
      st === 'active' ? status('archive', 'Archive') : null,
      st === 'active' ? status('suppress', 'Suppress') : null,
      ['archived', 'suppressed', 'superseded'].includes(st) ? status('activate', 'Activate') : null,
      h('button', {type: 'button', class: 'danger', on: {click: async (e) => {
        const ok = await confirmDialog({title: 'Delete this memory?',
          text: `“${item.text.slice(0, 200)}” is forgotten: deleted, and its history keeps only a “forgotten” event without text.`,
          confirmLabel: 'Delete memory'});
        if (!ok) return;
        const done = await act(e.target, 'Delete', () => del(one(), baseParams()), errors);
        if (done !== undefined) {
          toast('Deleted: the memory is forgotten.');
          state.selected = null;
          await reload();
        }
      }}}, 'Delete')),
    editor);
}

function historyList(history) {
  const events = (history && history.events) || [];
  return h('section', {class: 'history', 'aria-labelledby': 'history-title'},
    h('h3', {id: 'history-title'}, 'History'),
    history && history.forgotten ? note('This memory was forgotten.') : null,
    events.length === 0 ? note('No event recorded.') : h('ol', {class: 'timeline'}, events.map((ev) => h('li', {},
      h('p', {}, h('strong', {}, ev.event), ' ', h('time', {datetime: ev.at}, when(ev.at)),
        ev.actor ? h('span', {class: 'muted'}, ` by ${ev.actor}`) : null),
      ev.previousStatus && ev.status ? h('p', {class: 'muted'}, `${ev.previousStatus} → ${ev.status}`)
        : ev.status ? h('p', {class: 'muted'}, `status ${ev.status}`) : null,
      ev.previous ? h('p', {class: 'diff-old'}, h('span', {class: 'visually-hidden'}, 'Before: '), ev.previous) : null,
      ev.text ? h('p', {class: 'diff-new'}, h('span', {class: 'visually-hidden'}, 'After: '), ev.text) : null,
      ev.decision ? h('p', {}, `decision: ${ev.decision}`) : null,
      ev.other ? h('p', {class: 'muted'}, `other memory: ${ev.other}`) : null,
      ev.reason ? h('p', {class: 'muted'}, `reason: ${ev.reason}`) : null))));
}
