// What the signed-in token may do, and the agent and owner the views act on.

const AGENTS_KEY = 'memstack.console.agents';
const OWNER_KEY = 'memstack.console.owner';

export const session = {
  /** The whoami answer, or null when the host has no whoami route. */
  whoami: null,
  /** ADMIN, MEMBER, VIEWER, or null when unknown (no whoami route: everything is shown). */
  role: null,
  /** The one owner an owner-bound token may act for, or null. */
  boundOwner: null,
  /** The owner prefix of a token bound to a prefix ("api:" for "api:*"), or null. */
  ownerPrefix: null,
  agent: '',
  owner: '',
};

const listeners = new Set();

/** Calls fn whenever the agent or owner changes. */
export function onContextChange(fn) {
  listeners.add(fn);
}

function changed() {
  for (const fn of listeners) fn();
}

export function canWrite() {
  return session.role === null || session.role !== 'VIEWER';
}

export function isAdmin() {
  return session.role === null || session.role === 'ADMIN';
}

/** Takes in a whoami answer (or null when the route is missing). */
export function signedIn(whoami) {
  session.whoami = whoami;
  session.role = whoami && whoami.role ? String(whoami.role).toUpperCase() : null;
  const owner = whoami ? whoami.owner : null;
  session.boundOwner = owner && !owner.endsWith('*') ? owner : null;
  session.ownerPrefix = owner && owner.endsWith('*') ? owner.slice(0, -1) : null;
  session.agent = rememberedAgents()[0] || '';
  session.owner = session.boundOwner || sessionStorage.getItem(OWNER_KEY) || '';
  if (session.ownerPrefix && !session.owner.startsWith(session.ownerPrefix)) session.owner = '';
}

export function signedOut() {
  session.whoami = null;
  session.role = null;
  session.boundOwner = null;
  session.ownerPrefix = null;
  session.owner = '';
  sessionStorage.removeItem(OWNER_KEY);
}

/** Agents used before, most recent first (not secret: kept across visits). */
export function rememberedAgents() {
  try {
    const list = JSON.parse(localStorage.getItem(AGENTS_KEY) || '[]');
    return Array.isArray(list) ? list.filter((a) => typeof a === 'string') : [];
  } catch {
    return [];
  }
}

export const AGENT_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;
export const OWNER_PATTERN = /^(system|[a-z][a-z0-9_-]*:\S{1,255})$/;

export function setAgent(agent) {
  const list = [agent, ...rememberedAgents().filter((a) => a !== agent)].slice(0, 10);
  localStorage.setItem(AGENTS_KEY, JSON.stringify(list));
  session.agent = agent;
  changed();
}

/** Why this owner key cannot be used with this token, or null. */
export function ownerProblem(owner) {
  if (!OWNER_PATTERN.test(owner)) return "an owner key is 'system' or '<prefix>:<id>', e.g. user:42";
  if (session.boundOwner && owner !== session.boundOwner) return `this token acts for ${session.boundOwner} only`;
  if (session.ownerPrefix && !owner.startsWith(session.ownerPrefix)) {
    return `this token acts for owners ${session.ownerPrefix}* only`;
  }
  return null;
}

export function setOwner(owner) {
  if (session.boundOwner) owner = session.boundOwner;
  session.owner = owner;
  if (owner) sessionStorage.setItem(OWNER_KEY, owner);
  else sessionStorage.removeItem(OWNER_KEY);
  changed();
}
