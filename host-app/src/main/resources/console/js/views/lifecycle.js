// The lifecycle loop: the morning card (confirm, edit, forget), the contradiction inbox (keep new,
// keep old, keep both) with each memory's trust, and the dreaming reports.

import {h, fill, field, when, num, badge, note, id} from '../dom.js';
import {get, post, agentPath} from '../api.js';
import {session, canWrite} from '../state.js';
import {startView, loadInto, errorBox, toast, confirmDialog} from '../ui.js';
import {diffLines} from '../diff.js';
import {diffView} from './files.js';

const state = {date: ''};

export async function render(root) {
  if (!startView(root, session, 'Lifecycle',
    'What dreaming changed overnight and waits for the owner’s answer, the contradictions waiting for a decision, and the dream reports.')) return;
  const card = h('section', {class: 'panel', 'aria-labelledby': 'card-title', id: 'morning-card'});
  const inbox = h('section', {class: 'panel', 'aria-labelledby': 'inbox-title', id: 'inbox'});
  const reports = h('section', {class: 'panel', 'aria-labelledby': 'reports-title', id: 'reports'});
  root.append(card, inbox, reports);
  await Promise.all([loadCard(card, reports), loadInbox(inbox), loadReports(reports)]);
}

async function loadCard(panel, reportsPanel) {
  const dateInput = h('input', {type: 'date', value: state.date, name: 'date'});
  const body = h('div', {});
  fill(panel, h('h2', {id: 'card-title'}, 'Morning card'),
    h('form', {class: 'inline-form', 'aria-label': 'Card date', on: {submit: (e) => {
      e.preventDefault();
      state.date = dateInput.value;
      loadCard(panel, reportsPanel);
    }}}, field('Day of the dreams', dateInput, 'empty: yesterday in the host’s zone').wrap,
    h('button', {type: 'submit', class: 'secondary'}, 'Show card')),
    body);
  const card = await loadInto(body, 'Morning card', () => get(agentPath(session.agent, 'memory/dream/morning-card'), {ownerKey: session.owner, date: state.date}));
  if (!card) return;
  const items = card.items || [];
  fill(body,
    h('p', {class: 'muted'}, `${card.date || ''} (${card.zone || 'UTC'}): ${items.length} item${items.length === 1 ? '' : 's'}`),
    items.length === 0 ? note('Nothing waits for an answer on this day.') : h('ul', {class: 'cards'}, items.map((item) => cardItem(item, () => {
      loadCard(panel, reportsPanel);
      loadReports(reportsPanel);
    }))));
}

function cardItem(item, reload) {
  const errors = h('div', {class: 'errors'});
  const answer = async (button, body, label) => {
    button.disabled = true;
    errors.replaceChildren();
    try {
      await post(agentPath(session.agent, 'memory/dream/reports', encodeURIComponent(item.reportId), 'items', String(item.index)),
        body, {ownerKey: session.owner});
      toast(`${label}: “${item.text}”.`);
      reload();
    } catch (error) {
      errors.append(errorBox(error, label));
      button.disabled = false;
    }
  };
  const editId = id('card-edit');
  const editText = h('input', {id: editId, value: item.text});
  const editForm = h('form', {class: 'inline-form', hidden: true, on: {submit: (e) => {
    e.preventDefault();
    answer(e.submitter || editForm.querySelector('button'), {action: 'edit', text: editText.value}, 'Edited');
  }}}, h('label', {for: editId}, 'Corrected line'), editText, h('button', {type: 'submit'}, 'Save line'));
  return h('li', {class: 'card', 'data-report': item.reportId, 'data-index': String(item.index)},
    h('p', {class: 'card-text'}, item.text),
    h('p', {class: 'meta'}, badge(item.kind, item.kind === 'removed' ? 'warn' : 'type'), ' ',
      badge(item.status, item.status === 'pending' ? 'pending' : 'active'), ' ',
      h('span', {class: 'muted'}, `${item.file || 'MEMORY.md'} · ${when(item.time)}`)),
    canWrite() ? h('div', {class: 'row actions', role: 'group', 'aria-label': `Answer: ${item.text}`},
      item.status === 'pending'
        ? h('button', {type: 'button', on: {click: (e) => answer(e.target, {action: 'confirm'}, 'Confirmed')}}, 'Confirm') : null,
      h('button', {type: 'button', class: 'secondary', on: {click: () => {
        editForm.hidden = false;
        editText.focus();
      }}}, 'Edit'),
      h('button', {type: 'button', class: 'danger', on: {click: async (e) => {
        const ok = await confirmDialog({title: 'Forget this line?', confirmLabel: 'Forget',
          text: `“${item.text}” is removed from ${item.file || 'MEMORY.md'} and from every report, archive and DREAMS.md of the owner.`});
        if (ok) answer(e.target, {action: 'forget'}, 'Forgotten');
      }}}, 'Forget')) : null,
    editForm, errors);
}

function trustLine(memory) {
  const bits = [];
  if (memory.trust !== undefined) bits.push(`trust ${num(memory.trust, 2)}`);
  if (memory.weight !== undefined) bits.push(`weight ${num(memory.weight, 2)}`);
  if (memory.importance !== undefined) bits.push(`importance ${num(memory.importance, 2)}`);
  return h('p', {class: 'muted'}, bits.length ? bits.join(' · ') : 'trust not reported by the provider',
    ` · ${memory.status} · created ${when(memory.createdAt)}`);
}

async function loadInbox(panel) {
  const body = h('div', {});
  fill(panel, h('h2', {id: 'inbox-title'}, 'Contradiction inbox'), body);
  const page = await loadInto(body, 'Contradiction inbox', () => get(agentPath(session.agent, 'memory/inbox'), {ownerKey: session.owner, limit: 50}));
  if (!page) return;
  const items = page.items || [];
  fill(body,
    h('p', {class: 'muted'}, `${page.total ?? items.length} open contradiction${(page.total ?? items.length) === 1 ? '' : 's'}`),
    items.length === 0 ? note('No contradiction waits for a decision.') : h('ul', {class: 'cards'}, items.map((c) => {
      const errors = h('div', {class: 'errors'});
      const decide = async (button, decision) => {
        button.disabled = true;
        errors.replaceChildren();
        try {
          await post(agentPath(session.agent, 'memory/inbox', encodeURIComponent(c.id)), {decision}, {ownerKey: session.owner});
          toast(`Decided ${decision}.`);
          loadInbox(panel);
        } catch (error) {
          errors.append(errorBox(error, 'Decision'));
          button.disabled = false;
        }
      };
      return h('li', {class: 'card contradiction', 'data-id': c.id},
        h('div', {class: 'pair'},
          h('div', {}, h('h3', {}, 'Stored'), h('p', {}, c.existing.text), trustLine(c.existing)),
          h('div', {}, h('h3', {}, 'Incoming'), h('p', {}, c.incoming.text), trustLine(c.incoming))),
        h('p', {class: 'muted'}, `opened ${when(c.createdAt)}`),
        canWrite() ? h('div', {class: 'row actions', role: 'group', 'aria-label': 'Decide'},
          h('button', {type: 'button', on: {click: (e) => decide(e.target, 'keep-new')}}, 'Keep new'),
          h('button', {type: 'button', class: 'secondary', on: {click: (e) => decide(e.target, 'keep-old')}}, 'Keep old'),
          h('button', {type: 'button', class: 'secondary', on: {click: (e) => decide(e.target, 'keep-both')}}, 'Keep both')) : null,
        errors);
    })));
}

async function loadReports(panel) {
  const body = h('div', {});
  fill(panel, h('h2', {id: 'reports-title'}, 'Dream reports'), body);
  const answer = await loadInto(body, 'Dream reports', () => get(agentPath(session.agent, 'memory/dream/reports'), {ownerKey: session.owner}));
  if (!answer) return;
  const reports = answer.reports || [];
  fill(body, reports.length === 0 ? note('No dream report yet.') : h('ul', {class: 'cards'}, reports.map((r) => h('li', {class: 'card'},
    h('h3', {}, `${r.date || when(r.time)} · ${r.trigger || ''}${r.topic ? ` · ${r.topic}` : ''}`),
    h('p', {class: 'muted'}, `${r.scope || ''} · read ${r.read || '—'}`),
    r.patterns ? h('p', {}, `Patterns: ${r.patterns}`) : null,
    (r.items || []).length ? h('ul', {class: 'plain'}, r.items.map((item) => h('li', {}, badge(item.kind, 'type'), ' ',
      badge(item.status, item.status === 'pending' ? 'pending' : 'active'), ' ', item.text))) : null,
    (r.changes || []).map((change) => h('details', {}, h('summary', {}, `Change to ${change.file}`),
      diffView(diffLines(change.before || '', change.after || ''), `Change to ${change.file}`)))))));
}
