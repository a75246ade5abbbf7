// Conversations: the owner's conversations with the agent, a conversation's turns, and the window
// the host would send the chat model next.

import {h, fill, field, when, note, badge} from '../dom.js';
import {get, agentPath} from '../api.js';
import {session} from '../state.js';
import {startView, loadInto} from '../ui.js';

export async function render(root) {
  if (!startView(root, session, 'Conversations', 'The turns the host logged for this owner, and the window it would send the model next.')) return;
  const list = h('div', {class: 'conversation-list'});
  const detail = h('div', {class: 'conversation-detail'});
  root.append(h('div', {class: 'split'}, list, detail));
  const answer = await loadInto(list, 'Conversations', () => get(agentPath(session.agent, 'conversations'), {ownerKey: session.owner}));
  if (!answer) return;
  const conversations = answer.conversations || [];
  fill(list, h('h2', {}, `${conversations.length} conversation${conversations.length === 1 ? '' : 's'}`),
    conversations.length === 0 ? note('No turn logged for this owner with this agent.') : h('ul', {class: 'plain'},
      conversations.map((c) => h('li', {},
        h('button', {type: 'button', class: 'link', on: {click: () => openConversation(detail, c.conversationId)}}, c.conversationId),
        h('span', {class: 'muted'}, ` ${c.turns} turn${c.turns === 1 ? '' : 's'} · last ${when(c.lastTurnAt)}`)))));
}

async function openConversation(detail, conversationId, maxInputTokens = '') {
  const path = agentPath(session.agent, 'conversations', encodeURIComponent(conversationId));
  const both = await loadInto(detail, conversationId, () => Promise.all([
    get(path, {ownerKey: session.owner}),
    get(`${path}/window`, {ownerKey: session.owner, maxInputTokens}),
  ]));
  if (!both) return;
  const [log, window] = both;
  const budget = h('input', {type: 'number', min: 256, value: maxInputTokens, name: 'maxInputTokens'});
  const heading = h('h2', {tabindex: '-1'}, conversationId);
  fill(detail, heading,
    h('h3', {}, `Turns (${log.count})`),
    h('ol', {class: 'turns'}, (log.turns || []).map((t) => h('li', {},
      h('p', {class: 'muted'}, `${when(t.time)} · ${t.triggerSource}`),
      h('p', {class: 'turn-user'}, h('strong', {}, 'User: '), t.userMessage),
      h('p', {class: 'turn-assistant'}, h('strong', {}, 'Assistant: '), t.assistantReply)))),
    h('h3', {}, 'Window'),
    h('form', {class: 'inline-form', 'aria-label': 'Window budget', on: {submit: (e) => {
      e.preventDefault();
      openConversation(detail, conversationId, budget.value);
    }}}, field('Input budget (tokens)', budget, 'empty: the host’s default').wrap,
    h('button', {type: 'submit', class: 'secondary'}, 'Recompute window')),
    windowView(window));
  heading.focus();
}

function windowView(window) {
  const tokens = window.tokens || {};
  const parts = ['system', 'workspace', 'summary', 'recent', 'current'].filter((k) => tokens[k]);
  const total = Math.max(1, tokens.budget || tokens.total || 1);
  const meter = h('div', {class: 'stacked-bar', role: 'img',
    'aria-label': `${tokens.total ?? 0} of ${tokens.budget ?? '?'} tokens: ${parts.map((k) => `${k} ${tokens[k]}`).join(', ')}`},
  parts.map((k) => {
    const seg = h('span', {class: `seg seg-${k}`, title: `${k}: ${tokens[k]}`});
    seg.style.width = `${Math.max(0.5, (tokens[k] / total) * 100)}%`;
    return seg;
  }));
  return h('div', {class: 'window'},
    h('p', {}, badge(window.mode || '?', 'type'), ' ',
      `${tokens.total ?? 0} of ${tokens.budget ?? '?'} tokens (compacts past ${tokens.trigger ?? '?'}), counted by ${window.counter || '?'}`),
    meter,
    h('p', {class: 'legend muted'}, parts.map((k) => h('span', {class: `legend-item seg-${k}`}, `${k} ${tokens[k]}`))),
    window.summary ? h('p', {class: 'muted'}, `Summary of ${window.summary.coversTurns} earlier turns${window.summary.cached ? ' (cached)' : ''}.`) : null,
    h('ol', {class: 'messages'}, (window.messages || []).map((m) => h('li', {class: `message message-${m.role}`},
      h('p', {class: 'muted'}, `${m.role} · ${m.kind} · ${m.tokens} tokens`),
      h('p', {class: 'message-content'}, m.content)))));
}
