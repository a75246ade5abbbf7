// The console's shell: sign-in, navigation, agent and owner pickers, and the views.

import {h, fill, note} from './dom.js';
import {ApiError, get, setToken, token, whenUnauthorized, agentPath} from './api.js';
import {
  session, signedIn, signedOut, setAgent, setOwner, ownerProblem, rememberedAgents,
  onContextChange, canWrite, isAdmin, AGENT_PATTERN,
} from './state.js';
import {toast, errorMessage, loadInto} from './ui.js';
import * as memories from './views/memories.js';
import * as playground from './views/playground.js';
import * as files from './views/files.js';
import * as lifecycle from './views/lifecycle.js';
import * as conversations from './views/conversations.js';
import * as operations from './views/operations.js';
import * as tokens from './views/tokens.js';
import * as erase from './views/erase.js';

const VIEWS = [
  {id: 'memories', title: 'Memories', module: memories},
  {id: 'playground', title: 'Recall playground', module: playground},
  {id: 'files', title: 'Workspace files', module: files},
  {id: 'lifecycle', title: 'Lifecycle', module: lifecycle},
  {id: 'conversations', title: 'Conversations', module: conversations},
  {id: 'operations', title: 'Operations', module: operations},
  // managing tokens needs an admin token bound to no owner
  {id: 'tokens', title: 'Tokens', module: tokens, shown: () => isAdmin() && !session.boundOwner && !session.ownerPrefix},
  {id: 'erase', title: 'Erase owner', module: erase, shown: canWrite},
];

const $ = (id) => document.getElementById(id);
let renderSeq = 0;

function visibleViews() {
  return VIEWS.filter((v) => !v.shown || v.shown());
}

function currentView() {
  const wanted = (location.hash.match(/^#\/([a-z-]+)/) || [])[1];
  const views = visibleViews();
  return views.find((v) => v.id === wanted) || views[0];
}

function renderNav() {
  const active = currentView();
  fill($('nav-list'), visibleViews().map((v) => h('li', {},
    h('a', {href: `#/${v.id}`, 'aria-current': v === active ? 'page' : false}, v.title))));
}

async function renderView(focus) {
  const view = currentView();
  renderNav();
  document.title = `${view.title} · memstack console`;
  const root = $('view');
  const seq = ++renderSeq;
  root.replaceChildren();
  root.dataset.view = view.id;
  try {
    await view.module.render(root, {isCurrent: () => seq === renderSeq});
  } catch (error) {
    root.append(h('p', {class: 'error', role: 'alert'}, errorMessage(error, view.title)));
  }
  if (focus) {
    const title = root.querySelector('h1');
    if (title) title.focus();
  }
}

// ---- agent and owner

function renderAgentPicker() {
  const input = $('agent-input');
  input.value = session.agent;
  fill($('agent-list'), rememberedAgents().map((a) => h('option', {value: a})));
}

function renderOwnerPicker() {
  const root = $('owner-picker');
  if (session.boundOwner) {
    fill(root, h('p', {class: 'owner-fixed'}, 'Owner ', h('strong', {}, session.boundOwner),
      h('span', {class: 'muted'}, ' (this token acts for this owner only)')));
    return;
  }
  const input = h('input', {id: 'owner-input', autocomplete: 'off', spellcheck: 'false',
    placeholder: session.ownerPrefix ? `${session.ownerPrefix}…` : 'e.g. user:42', value: session.owner});
  const problem = h('p', {class: 'error', id: 'owner-problem', role: 'alert', hidden: true});
  const form = h('form', {class: 'inline-form', on: {submit: (e) => {
    e.preventDefault();
    const owner = input.value.trim();
    const why = owner ? ownerProblem(owner) : null;
    problem.hidden = !why;
    problem.textContent = why || '';
    if (!why) setOwner(owner);
  }}},
  h('label', {for: 'owner-input'}, 'Owner'), input,
  h('button', {type: 'submit', class: 'secondary'}, 'Use owner'));
  const browser = h('details', {class: 'owner-browser', on: {toggle: (e) => {
    if (e.target.open) loadOwners(list, {offset: 0, q: search.value.trim()});
  }}});
  const search = h('input', {id: 'owner-search', type: 'search', autocomplete: 'off'});
  const list = h('div', {class: 'owner-list'});
  browser.append(
    h('summary', {}, 'Browse owners'),
    h('form', {class: 'inline-form', on: {submit: (e) => {
      e.preventDefault();
      loadOwners(list, {offset: 0, q: search.value.trim()});
    }}}, h('label', {for: 'owner-search'}, 'Search owners'), search,
    h('button', {type: 'submit', class: 'secondary'}, 'Search')),
    list);
  fill(root, form, problem, browser);
}

const OWNER_PAGE = 10;

async function loadOwners(list, {offset, q}) {
  if (!session.agent) {
    fill(list, note('Choose an agent first.'));
    return;
  }
  const page = await loadInto(list, 'Owners', () => get(agentPath(session.agent, 'owners'), {offset, limit: OWNER_PAGE, q}),
    'This host cannot list owners yet (no GET /api/v1/agents/{agentId}/owners route): type an owner key above.');
  if (!page) return;
  const owners = page.owners || [];
  const total = page.total ?? owners.length;
  fill(list,
    owners.length === 0 ? note(q ? `No owner matches “${q}”.` : 'No owner has memories with this agent yet.') : null,
    h('ul', {class: 'plain'}, owners.map((o) => h('li', {},
      h('button', {type: 'button', class: 'link', on: {click: () => setOwner(o.ownerKey)}}, o.ownerKey),
      ' ', h('span', {class: 'muted'}, `${o.total ?? ''} memories`,
        o.counts ? ` (${Object.entries(o.counts).map(([p, n]) => `${p} ${n}`).join(', ')})` : '')))),
    h('div', {class: 'pager'},
      h('button', {type: 'button', class: 'secondary', disabled: offset <= 0,
        on: {click: () => loadOwners(list, {offset: Math.max(0, offset - OWNER_PAGE), q})}}, 'Previous owners'),
      h('span', {}, total ? `${offset + 1}–${Math.min(offset + owners.length, total)} of ${total}` : ''),
      h('button', {type: 'button', class: 'secondary', disabled: offset + OWNER_PAGE >= total,
        on: {click: () => loadOwners(list, {offset: offset + OWNER_PAGE, q})}}, 'Next owners')));
}

// ---- sign-in

function describeToken() {
  const who = session.whoami;
  if (!who) return 'Signed in (this host cannot tell the token’s role)';
  const owner = who.owner ? `, owner ${who.owner}` : '';
  return `${who.name} · ${String(who.role).toLowerCase()}${owner}`;
}

function showNotice() {
  const notice = $('notice');
  if (session.whoami) {
    notice.hidden = true;
    return;
  }
  notice.hidden = false;
  fill(notice, h('p', {}, 'This host has no GET /api/v1/whoami route, so the console cannot tell what this token may do: '
    + 'every view and button is shown, and the API refuses what the token may not do.'));
}

async function whoami() {
  try {
    return await get('/api/v1/whoami', undefined, {signInCheck: true});
  } catch (error) {
    if (!(error instanceof ApiError) || !error.missingRoute) throw error;
    // no whoami route: check the token on a route every valid token may read
    await get('/api/v1/plugins', undefined, {signInCheck: true});
    return null;
  }
}

async function start() {
  const current = token();
  if (!current) {
    showSignIn();
    return;
  }
  try {
    signedIn(await whoami());
  } catch (error) {
    setToken(null);
    showSignIn(error.status === 401 ? 'This token is not valid (401).' : errorMessage(error, 'Sign-in'));
    return;
  }
  $('signin').hidden = true;
  $('shell').hidden = false;
  $('who').hidden = false;
  $('who-text').textContent = describeToken();
  showNotice();
  renderAgentPicker();
  renderOwnerPicker();
  await renderView(false);
}

function showSignIn(message) {
  $('shell').hidden = true;
  $('who').hidden = true;
  $('signin').hidden = false;
  $('view').replaceChildren();
  const error = $('signin-error');
  error.hidden = !message;
  error.textContent = message || '';
  $('signin-token').value = '';
  $('signin-token').focus();
}

function signOut(message) {
  setToken(null);
  signedOut();
  showSignIn(message);
}

document.addEventListener('DOMContentLoaded', () => {
  $('signin-form').addEventListener('submit', (e) => {
    e.preventDefault();
    const value = $('signin-token').value.trim();
    if (!value) return;
    setToken(value);
    start();
  });
  $('sign-out').addEventListener('click', () => signOut());
  $('agent-form').addEventListener('submit', (e) => {
    e.preventDefault();
    const agent = $('agent-input').value.trim();
    if (!AGENT_PATTERN.test(agent)) {
      toast('An agent id is 1-64 letters, digits, _ or -.', 'error');
      $('agent-input').focus();
      return;
    }
    setAgent(agent);
    renderAgentPicker();
  });
  whenUnauthorized(() => signOut('The host no longer accepts this token (401): sign in again.'));
  onContextChange(() => {
    renderOwnerPicker();
    renderView(false);
  });
  window.addEventListener('hashchange', () => {
    document.getElementById('toast').replaceChildren();
    renderView(true);
  });
  start();
});
