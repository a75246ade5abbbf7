// Token management for admins: create (the secret is shown once), list, revoke.

import {h, fill, field, select, when, badge, note, table} from '../dom.js';
import {get, post, del} from '../api.js';
import {session, isAdmin} from '../state.js';
import {viewHeader, loadInto, errorBox, toast, confirmDialog, errorMessage} from '../ui.js';

export async function render(root) {
  root.append(...viewHeader('Tokens', 'API tokens of this host. Tokens created here are stored as salted hashes; '
    + 'the secret is shown once, when the token is created. Configured tokens are listed but revoked only in the configuration.'));
  if (!isAdmin()) {
    root.append(note('Needs an admin token.'));
    return;
  }
  const list = h('div', {id: 'token-list'});
  const created = h('div', {id: 'token-created'});
  root.append(createForm(list, created), created, h('section', {class: 'panel', 'aria-labelledby': 'tokens-title'},
    h('h2', {id: 'tokens-title'}, 'Tokens'), list));
  await loadTokens(list);
}

function createForm(list, created) {
  const name = h('input', {name: 'name', autocomplete: 'off', required: true, maxlength: 100});
  const role = select([['viewer', 'viewer: reads'], ['member', 'member: reads and writes memory'], ['admin', 'admin: runs the host']], 'viewer', {name: 'role'});
  const owner = h('input', {name: 'owner', autocomplete: 'off', placeholder: 'none: every owner'});
  const errors = h('div', {class: 'errors'});
  const form = h('form', {class: 'panel stack', 'aria-labelledby': 'create-token-title', on: {submit: async (e) => {
    e.preventDefault();
    const button = form.querySelector('button[type=submit]');
    button.disabled = true;
    errors.replaceChildren();
    const body = {name: name.value.trim(), role: role.value};
    if (owner.value.trim()) body.owner = owner.value.trim();
    try {
      const token = await post('/api/v1/tokens', body);
      showSecret(created, token);
      form.reset();
      await loadTokens(list);
    } catch (error) {
      errors.append(errorBox(error, 'Create token'));
    } finally {
      button.disabled = false;
    }
  }}},
  h('h2', {id: 'create-token-title'}, 'Create a token'),
  h('div', {class: 'row fields'}, field('Name', name).wrap, field('Role', role).wrap,
    field('Owner binding', owner, 'optional: api:42, or api:* for every owner with that prefix').wrap),
  h('div', {class: 'row'}, h('button', {type: 'submit'}, 'Create token')), errors);
  return form;
}

function showSecret(created, token) {
  const secretId = 'token-secret';
  const heading = h('h2', {tabindex: '-1'}, `Token “${token.name}” created`);
  fill(created, h('section', {class: 'panel callout', 'aria-labelledby': 'created-title'},
    heading,
    h('p', {}, 'Copy the secret now: it is shown this once and cannot be read again.'),
    h('label', {for: secretId}, 'Secret'),
    h('input', {id: secretId, readonly: true, value: token.token, class: 'code', spellcheck: 'false'}),
    h('div', {class: 'row'},
      h('button', {type: 'button', class: 'secondary', on: {click: async () => {
        try {
          await navigator.clipboard.writeText(token.token);
          toast('Copied the secret.');
        } catch {
          document.getElementById(secretId).select();
          toast('Select the secret and copy it.', 'error');
        }
      }}}, 'Copy secret'),
      h('button', {type: 'button', class: 'secondary', on: {click: () => created.replaceChildren()}}, 'I have stored it'))));
  heading.id = 'created-title';
  heading.focus();
}

async function loadTokens(list) {
  const answer = await loadInto(list, 'Tokens', () => get('/api/v1/tokens'),
    'This host cannot manage tokens yet (no /api/v1/tokens route): configure them in memstack.security.tokens.');
  if (!answer) return;
  const tokens = answer.tokens || [];
  fill(list, tokens.length === 0 ? note('No token.') : table('Tokens', [
    ['Name', (t) => t.name],
    ['Role', (t) => String(t.role).toLowerCase()],
    ['Owner', (t) => t.owner || 'every owner'],
    ['Source', (t) => badge(t.source, t.source === 'api' ? 'type' : 'muted')],
    ['Created', (t) => when(t.createdAt)],
    ['Last used', (t) => when(t.lastUsedAt)],
    ['Revoke', (t) => (t.source === 'api' ? h('button', {type: 'button', class: 'danger', 'data-token': t.id, on: {click: async (e) => {
      if (!(await confirmDialog({title: `Revoke “${t.name}”?`, text: 'It stops working at once on every host, and its MCP sessions and streams end.', confirmLabel: 'Revoke token'}))) return;
      e.target.disabled = true;
      try {
        await del(`/api/v1/tokens/${encodeURIComponent(t.id)}`);
        toast(`Revoked “${t.name}”.`);
      } catch (error) {
        toast(errorMessage(error, 'Revoke'), 'error');
      }
      loadTokens(list);
    }}, 'aria-label': `Revoke ${t.name}`}, 'Revoke') : h('span', {class: 'muted'}, session.whoami && session.whoami.name === t.name ? 'this token' : 'configured'))],
  ], tokens));
}
