// The recall playground: a question through the side-effect-free preview route, the ranked context
// with every signal as a bar, and each provider's status and time.

import {h, fill, field, when, num, badge, note, id} from '../dom.js';
import {post, agentPath} from '../api.js';
import {session} from '../state.js';
import {startView, errorBox} from '../ui.js';

const state = {query: '', limit: 10, providers: ''};

export async function render(root) {
  if (!startView(root, session, 'Recall playground',
    'Ask a question as the owner would and see what memory the agent would be given, ranked, with every signal. '
    + 'The preview route changes nothing: no feedback, no trust, no turn, no morning card.')) return;
  const out = h('div', {class: 'playground-out', id: 'playground-out'});
  const question = h('textarea', {rows: 2, name: 'query'}, state.query);
  const limit = h('input', {type: 'number', min: 1, max: 200, value: state.limit, name: 'limit'});
  const providers = h('input', {name: 'providers', value: state.providers, autocomplete: 'off', placeholder: 'every provider'});
  const form = h('form', {class: 'stack', 'aria-label': 'Preview a recall', on: {submit: async (e) => {
    e.preventDefault();
    state.query = question.value;
    state.limit = Number(limit.value) || 10;
    state.providers = providers.value.trim();
    const button = form.querySelector('button[type=submit]');
    button.disabled = true;
    try {
      await preview(out);
    } finally {
      button.disabled = false;
    }
  }}},
  field('Question', question).wrap,
  h('div', {class: 'row fields'}, field('Most items', limit).wrap,
    field('Providers', providers, 'comma-separated instance ids; empty: every provider').wrap),
  h('div', {class: 'row'}, h('button', {type: 'submit'}, 'Preview recall')));
  root.append(form, out);
  if (state.query) await preview(out);
}

async function preview(out) {
  fill(out, note('Asking every provider…'));
  const body = {ownerKey: session.owner, query: state.query, limit: state.limit, explain: true};
  if (state.providers) body.providers = state.providers.split(',').map((p) => p.trim()).filter(Boolean);
  let answer;
  const started = performance.now();
  try {
    answer = await post(agentPath(session.agent, 'memory/context/preview'), body);
  } catch (error) {
    fill(out, error.missingRoute
      ? h('p', {class: 'error', role: 'alert'}, 'This host has no recall preview route yet '
        + '(POST /api/v1/agents/{agentId}/memory/context/preview answered 404). The playground does not fall back '
        + 'to the context call, which a real conversation uses.')
      : errorBox(error, 'Preview'));
    return;
  }
  const took = Math.round(performance.now() - started);
  const recall = answer.recall || [];
  fill(out,
    h('h2', {}, 'Providers'),
    providerTable(answer.providers || [], took),
    h('h2', {id: 'ranked-title'}, `Ranked context (${recall.length})`),
    recall.length === 0 ? note('Nothing would be recalled for this question.') : h('ol', {class: 'ranked', 'aria-labelledby': 'ranked-title'},
      recall.map((item, i) => rankedItem(item, i, i === 0))),
    answer.ownerPrompt ? h('details', {}, h('summary', {}, 'Owner prompt (standing memory)'), h('pre', {}, answer.ownerPrompt)) : null,
    answer.systemPrompt ? h('details', {}, h('summary', {}, 'System prompt (shared memory)'), h('pre', {}, answer.systemPrompt)) : null,
    answer.context ? h('details', {}, h('summary', {}, 'Context as sent to the model'), h('pre', {}, answer.context)) : null);
}

function providerTable(providers, took) {
  const max = Math.max(1, ...providers.map((p) => p.tookMs || 0));
  return h('div', {},
    h('p', {class: 'muted'}, `The preview answered in ${took} ms.`),
    h('ul', {class: 'provider-status'}, providers.map((p) => h('li', {},
      h('span', {class: 'provider-name'}, p.id), ' ', badge(p.status, p.status === 'ok' ? 'active' : 'warn'), ' ',
      h('span', {class: 'muted'}, `${p.tookMs ?? 0} ms`),
      bar((p.tookMs || 0) / max, `${p.id} took ${p.tookMs ?? 0} ms`),
      p.detail ? h('p', {class: 'muted'}, p.detail) : null))));
}

/** A horizontal bar for a value in 0..1 (clamped). */
function bar(fraction, label, negative = false) {
  const fillEl = h('span', {class: ['bar-fill', negative && 'negative']});
  fillEl.style.width = `${Math.round(Math.max(0, Math.min(1, fraction)) * 100)}%`;
  return h('span', {class: 'bar', role: 'img', 'aria-label': label}, fillEl);
}

/** The signals of an item: [{name, value, contribution}] from its explain metadata. */
export function signals(metadata) {
  const list = [];
  for (const [name, raw] of Object.entries(metadata || {})) {
    if (name === 'id' || typeof raw !== 'string') continue;
    const match = /^(-?\d+(?:\.\d+)?(?:[eE]-?\d+)?)(?:\s+([+-]\d+(?:\.\d+)?))?$/.exec(raw.trim());
    if (!match) continue;
    list.push({name, value: Number(match[1]), contribution: match[2] !== undefined ? Number(match[2]) : null});
  }
  return list;
}

function signalRows(list, title) {
  if (list.length === 0) return null;
  const max = Math.max(1, ...list.map((s) => Math.abs(s.contribution ?? s.value)));
  const rows = list.map((sig) => {
    const shown = sig.contribution ?? sig.value;
    const fraction = Math.abs(shown) / (sig.contribution === null && Math.abs(sig.value) <= 1 ? 1 : max);
    return h('li', {class: 'signal'},
      h('span', {class: 'signal-name'}, sig.name),
      bar(fraction, `${sig.name} ${num(sig.value, 4)}${sig.contribution !== null ? `, contribution ${num(sig.contribution, 4)}` : ''}`, shown < 0),
      h('span', {class: 'signal-value'}, sig.contribution !== null ? `${num(sig.value, 3)} (${sig.contribution >= 0 ? '+' : ''}${num(sig.contribution, 3)})` : num(sig.value, 3)));
  });
  return [h('h4', {}, title), h('ul', {class: 'signals'}, rows)];
}

function rankedItem(item, index, open) {
  const meta = item.metadata || {};
  const all = signals(meta);
  const features = all.filter((s) => s.name.startsWith('stack.feature.'));
  const stack = all.filter((s) => s.name.startsWith('stack.') && !s.name.startsWith('stack.feature.'));
  const own = all.filter((s) => !s.name.startsWith('stack.'));
  const detailsId = id('signals');
  return h('li', {class: 'ranked-item'},
    h('p', {class: 'ranked-text'}, h('span', {class: 'rank'}, `#${index + 1}`), ' ', item.text),
    h('p', {class: 'meta'}, badge(item.provider, 'type'), ' ', badge(item.scope || '?', 'scope'), ' ',
      h('span', {class: 'muted'}, `score ${num(item.score, 3)} · created ${when(item.createdAt)}`),
      meta['stack.trust'] !== undefined ? h('span', {class: 'muted'}, ` · trust ${meta['stack.trust']}`) : null,
      meta.id ? h('span', {class: 'muted'}, ` · id ${meta.id}`) : null),
    bar(item.score || 0, `score ${num(item.score, 3)}`),
    h('details', {id: detailsId, open}, h('summary', {}, `Signals (${all.length})`),
      signalRows(stack, 'The stack’s ranking'),
      signalRows(own, `${item.provider}’s own signals`),
      features.length ? h('details', {class: 'features'}, h('summary', {}, `Ranking features (${features.length}): value and contribution`),
        signalRows(features.sort((x, y) => Math.abs(y.contribution ?? 0) - Math.abs(x.contribution ?? 0)), 'Largest contribution first')) : null));
}
