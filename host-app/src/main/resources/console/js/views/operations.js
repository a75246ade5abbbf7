// Operations: health, activity of the last hour (charts from the stats samples), providers,
// plugins (start, stop, reload for admins), the outbox and its lag, dead letters (retry, drop).

import {h, fill, when, num, badge, note, table} from '../dom.js';
import {get, post, del, agentPath} from '../api.js';
import {session, isAdmin} from '../state.js';
import {viewHeader, loadInto, toast, confirmDialog, errorMessage} from '../ui.js';
import {lineChart, perMinute, countBars} from '../charts.js';

const state = {ownerOnly: false};

export async function render(root) {
  root.append(...viewHeader('Operations', 'How the host and its providers are doing: health, activity, outbox and dead letters.'));
  const panels = {
    health: panel('Health', 'ops-health'),
    activity: panel('Last hour', 'ops-activity'),
    providers: panel('Providers', 'ops-providers'),
    plugins: panel('Plugins', 'ops-plugins'),
    outbox: panel('Outbox', 'ops-outbox'),
    dead: panel('Dead letters', 'ops-dead-letters'),
  };
  root.append(...Object.values(panels).map((p) => p.section));
  const admin = session.role === null || session.role === 'ADMIN';
  await Promise.all([
    loadHealth(panels.health.body),
    loadActivity(panels.activity.body),
    admin ? loadProviders(panels.providers.body) : adminOnly(panels.providers.body),
    loadPlugins(panels.plugins.body),
    admin ? loadOutbox(panels.outbox.body) : adminOnly(panels.outbox.body),
    admin ? loadDeadLetters(panels.dead.body) : adminOnly(panels.dead.body),
  ]);
}

function panel(title, key) {
  const body = h('div', {});
  const section = h('section', {class: 'panel', id: key, 'aria-labelledby': `${key}-title`},
    h('h2', {id: `${key}-title`}, title), body);
  return {section, body};
}

function adminOnly(body) {
  fill(body, note('Needs an admin token.'));
}

async function guarded(body, what, load) {
  await loadInto(body, what, load);
}

function healthKind(status) {
  return {UP: 'active', DEGRADED: 'warn', DOWN: 'danger', OUT_OF_SERVICE: 'danger'}[status] || 'muted';
}

function loadHealth(body) {
  return guarded(body, 'Health', async () => {
    let health;
    try {
      health = await get('/actuator/health');
    } catch (error) {
      // 503 still carries the health body
      if (error.status === 503 && error.body && error.body.status) health = error.body;
      else throw error;
    }
    const components = Object.entries(health.components || {});
    fill(body, h('p', {}, 'The host is ', badge(health.status, healthKind(health.status))),
      h('ul', {class: 'plain health-list'}, components.map(([name, c]) => h('li', {},
        h('strong', {}, name), ' ', badge(c.status, healthKind(c.status)),
        name === 'providers' && c.details ? h('ul', {class: 'plain nested'}, Object.entries(c.details).map(([p, d]) => h('li', {},
          p, ' ', badge(d.status, healthKind(d.status)), d.details && d.details.detail ? h('span', {class: 'muted'}, ` ${d.details.detail}`) : null))) : null))));
  });
}

function samplePoints(samples, key) {
  return samples.filter((x) => x && x.at && typeof x[key] === 'number').map((x) => ({at: new Date(x.at), value: x[key]}));
}

async function loadActivity(body) {
  if (!session.agent) {
    fill(body, note('Choose an agent to see its activity.'));
    return;
  }
  // a token bound to owners reads one owner's statistics only
  const bound = !!(session.boundOwner || session.ownerPrefix);
  if (bound && !session.owner) {
    fill(body, note('Choose an owner to see their activity.'));
    return;
  }
  const ownerToggle = h('input', {type: 'checkbox', id: 'stats-owner-only', checked: state.ownerOnly || bound,
    disabled: !session.owner || bound});
  ownerToggle.addEventListener('change', () => {
    state.ownerOnly = ownerToggle.checked;
    loadActivity(body);
  });
  const out = h('div', {});
  fill(body, h('div', {class: 'check'}, ownerToggle, h('label', {for: 'stats-owner-only'},
    session.owner ? `Only ${session.owner}` : 'Only the chosen owner')), out);
  const ownerKey = (state.ownerOnly || bound) && session.owner ? session.owner : undefined;
  const stats = await loadInto(out, 'The last hour', () => get(agentPath(session.agent, 'stats'), {ownerKey}),
    'This host has no stats route yet (GET /api/v1/agents/{agentId}/stats): no counts or charts.');
  if (!stats) return;
  const samples = stats.samples || [];
  const outbox = stats.outbox || {};
  const counts = stats.counts || {};
  const recent = stats.recent || {};
  fill(out,
    h('p', {class: 'kpis'},
      kpi('Pending turns', outbox.pending), kpi('Dead letters', outbox.deadLetters),
      kpi('Outbox lag', outbox.lagSeconds !== undefined ? `${num(outbox.lagSeconds, 1)} s` : undefined)),
    h('div', {class: 'charts'},
      lineChart('Memories', samplePoints(samples, 'memories')),
      lineChart('Deliveries per minute', perMinute(samplePoints(samples, 'delivered')), '/min'),
      lineChart('Turns accepted per minute', perMinute(samplePoints(samples, 'turns')), '/min'),
      lineChart('Pending turns (outbox lag)', samplePoints(samples, 'pending')),
      lineChart('Dead letters', samplePoints(samples, 'deadLetters'))),
    h('div', {class: 'charts'},
      countBars('By provider', counts.byProvider), countBars('By type', counts.byType), countBars('By status', counts.byStatus)),
    h('p', {class: 'muted'}, `Last hour: ${recent.turnsLastHour ?? 0} turns accepted, ${recent.memoriesCreatedLastHour ?? 0} memories created.`));
}

function kpi(label, value) {
  return h('span', {class: 'kpi'}, h('span', {class: 'kpi-value'}, value === undefined ? '—' : String(value)), h('span', {class: 'kpi-label'}, label));
}

function loadProviders(body) {
  return guarded(body, 'Providers', async () => {
    const {providers = []} = await get('/api/v1/providers');
    fill(body, table('Providers', [
      ['Id', (p) => p.id], ['Type', (p) => p.type], ['Order', (p) => String(p.order)],
      ['State', (p) => badge(p.state, p.state === 'running' ? 'active' : 'muted')],
      ['Health', (p) => [badge(p.health.status, healthKind(p.health.status)), p.health.detail ? ` ${p.health.detail}` : '']],
      ['Breaker', (p) => p.breaker || '—'],
    ], providers));
  });
}

function loadPlugins(body) {
  return guarded(body, 'Plugins', async () => {
    const {plugins = []} = await get('/api/v1/plugins');
    const admin = isAdmin();
    const action = (plugin, verb) => h('button', {type: 'button', class: verb === 'stop' ? 'danger' : 'secondary', on: {click: async (e) => {
      if (verb === 'stop' && !(await confirmDialog({title: `Stop ${plugin.id}?`,
        text: 'Its providers leave the stack until it is started again; turns for them wait in the outbox.', confirmLabel: 'Stop plugin'}))) return;
      e.target.disabled = true;
      try {
        const done = await post(`/api/v1/plugins/${encodeURIComponent(plugin.id)}/${verb}`);
        toast(`${plugin.id}: ${done.state}.`);
      } catch (error) {
        toast(errorMessage(error, `${verb} ${plugin.id}`), 'error');
      }
      loadPlugins(body);
    }}}, `${verb[0].toUpperCase()}${verb.slice(1)} ${plugin.id}`);
    fill(body, h('ul', {class: 'cards grid'}, plugins.map((p) => h('li', {class: 'card'},
      h('p', {}, h('strong', {}, p.id), ` ${p.version} `, badge(p.state, p.state === 'started' ? 'active' : 'warn')),
      h('p', {class: 'muted'}, p.description || ''),
      p.failure ? h('p', {class: 'error'}, p.failure) : null,
      h('p', {class: 'muted'}, `provides ${(p.providerTypes || []).join(', ') || 'nothing while not started'}`),
      admin ? h('div', {class: 'row actions'},
        p.state === 'started' ? action(p, 'stop') : action(p, 'start'), action(p, 'reload')) : null))));
  });
}

function loadOutbox(body) {
  return guarded(body, 'Outbox', async () => {
    const outbox = await get('/api/v1/outbox');
    const providers = outbox.providers || [];
    fill(body,
      h('p', {class: 'muted'}, `${outbox.type} outbox${outbox.journal ? ` · ${outbox.journal.segments ?? '?'} segments, ${outbox.journal.bytes ?? '?'} bytes` : ''}`),
      table('Outbox per provider', [
        ['Provider', (p) => p.id], ['Pending', (p) => String(p.pending)],
        ['Lag', (p) => (p.oldestAgeMs ? `${num(p.oldestAgeMs / 1000, 1)} s` : '0 s')],
        ['Delivered', (p) => String(p.delivered)], ['Failed attempts', (p) => String(p.failedAttempts)],
        ['Dead letters', (p) => String(p.deadLetters ?? 0)], ['Last error', (p) => p.lastError || '—'],
      ], providers));
  });
}

function loadDeadLetters(body) {
  return guarded(body, 'Dead letters', async () => {
    const answer = await get('/api/v1/outbox/dead-letters');
    const letters = answer.deadLetters || [];
    const reload = () => loadDeadLetters(body);
    fill(body, letters.length === 0 ? note('No dead letter: every accepted turn was delivered or is on its way.') : h('ul', {class: 'cards'},
      letters.map((d) => h('li', {class: 'card', 'data-id': d.id},
        h('p', {}, h('strong', {}, d.provider), ` turn ${d.turnId} of ${d.ownerKey} (agent ${d.agentId}, conversation ${d.conversationId})`),
        h('p', {class: 'muted'}, `${d.reason} after ${d.attempts} attempt${d.attempts === 1 ? '' : 's'} · parked ${when(d.parkedAt)}`),
        h('p', {class: 'muted'}, d.detail || ''),
        h('div', {class: 'row actions'},
          h('button', {type: 'button', on: {click: async (e) => {
            e.target.disabled = true;
            try {
              await post(`/api/v1/outbox/dead-letters/${encodeURIComponent(d.id)}/retry`);
              toast(`Retrying turn ${d.turnId}: queued for ${d.provider}.`);
            } catch (error) {
              toast(errorMessage(error, 'Retry'), 'error');
            }
            reload();
          }}}, `Retry ${d.id}`),
          h('button', {type: 'button', class: 'danger', on: {click: async (e) => {
            if (!(await confirmDialog({title: 'Drop this dead letter?', text: `Turn ${d.turnId} is never delivered to ${d.provider}.`, confirmLabel: 'Drop'}))) return;
            e.target.disabled = true;
            try {
              await del(`/api/v1/outbox/dead-letters/${encodeURIComponent(d.id)}`);
              toast(`Dropped ${d.id}.`);
            } catch (error) {
              toast(errorMessage(error, 'Drop'), 'error');
            }
            reload();
          }}}, `Drop ${d.id}`))))));
  });
}
