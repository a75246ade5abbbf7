// "Erase this owner": every provider forgets the owner, behind a typed confirmation.

import {h, fill, note, table, badge} from '../dom.js';
import {del} from '../api.js';
import {session} from '../state.js';
import {startView, errorBox} from '../ui.js';

export async function render(root) {
  if (!startView(root, session, 'Erase owner',
    'Erases everything memstack holds for one owner, in every provider (running or not), with the owner’s turns still waiting '
    + 'for delivery, conversation log and dead letters. It cannot be undone.')) return;
  const owner = session.owner;
  const out = h('div', {id: 'erase-result'});
  const input = h('input', {id: 'erase-confirm', autocomplete: 'off', spellcheck: 'false'});
  const button = h('button', {type: 'submit', class: 'danger', disabled: true}, `Erase ${owner}`);
  input.addEventListener('input', () => {
    button.disabled = input.value !== owner;
  });
  const form = h('form', {class: 'panel stack danger-zone', 'aria-labelledby': 'erase-title', on: {submit: async (e) => {
    e.preventDefault();
    if (input.value !== owner) return;
    button.disabled = true;
    fill(out, note(`Erasing ${owner}…`));
    try {
      const answer = await del(`/api/v1/owners/${encodeURIComponent(owner)}/memory`);
      const heading = h('h2', {tabindex: '-1'}, `${owner} erased`);
      fill(out, heading,
        table('Erasure per provider', [
          ['Provider', (p) => p.id],
          ['Outcome', (p) => badge(p.outcome, p.outcome === 'erased' ? 'active' : 'warn')],
          ['Removed', (p) => String(p.removed)],
          ['Dropped pending', (p) => String(p.droppedPending)],
          ['Detail', (p) => p.detail || '—'],
        ], answer.providers || []),
        h('p', {}, `${answer.conversationTurnsRemoved ?? 0} logged turns and ${answer.conversationSummariesRemoved ?? 0} window summaries removed.`));
      input.value = '';
      heading.focus();
    } catch (error) {
      fill(out, errorBox(error, 'Erase'));
      button.disabled = false;
    }
  }}},
  h('h2', {id: 'erase-title'}, `Erase ${owner}`),
  h('p', {}, 'Type the owner key to confirm.'),
  h('label', {for: 'erase-confirm'}, `Owner key (${owner})`), input,
  h('div', {class: 'row'}, button));
  root.append(form, out);
}
