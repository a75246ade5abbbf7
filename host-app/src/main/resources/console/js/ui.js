// Shared pieces of the views: messages, confirmations, busy buttons.

import {h, fill} from './dom.js';
import {ApiError} from './api.js';

/** Says something in the live region (read out by screen readers) for a few seconds. */
export function toast(message, kind = 'ok') {
  const el = document.getElementById('toast');
  fill(el, h('p', {class: `toast-${kind}`}, message));
  clearTimeout(toast.timer);
  toast.timer = setTimeout(() => el.replaceChildren(), 6000);
}

/** A message for an error: what the API said, or that the route is missing on this host. */
export function errorMessage(error, what) {
  if (error instanceof ApiError) {
    if (error.missingRoute) {
      return `${what}: this host does not offer ${error.path.replace(/\?.*$/, '')} yet (404, no such route).`;
    }
    if (error.status === 403) return `${what}: this token may not do that (${error.message})`;
    return `${what}: ${error.describe()}`;
  }
  return `${what}: ${error && error.message ? error.message : error}`;
}

/** An alert paragraph for an error. */
export function errorBox(error, what) {
  return h('p', {class: 'error', role: 'alert'}, errorMessage(error, what));
}

/**
 * Runs an action from a button: disables it meanwhile, says the outcome in the toast region and
 * returns the result (or undefined on error, shown in `errorTarget` or the toast).
 */
export async function act(button, what, action, errorTarget) {
  if (button) button.disabled = true;
  if (errorTarget) errorTarget.replaceChildren();
  try {
    return await action();
  } catch (error) {
    if (errorTarget) errorTarget.append(errorBox(error, what));
    else toast(errorMessage(error, what), 'error');
    return undefined;
  } finally {
    if (button && button.isConnected) button.disabled = false;
  }
}

/**
 * Asks before a change: resolves true when confirmed. With `typed`, the confirm button works only
 * once that exact text is typed.
 */
export function confirmDialog({title, text, confirmLabel = 'Confirm', typed, danger = true}) {
  const dialog = document.getElementById('confirm-dialog');
  const ok = document.getElementById('confirm-ok');
  document.getElementById('confirm-title').textContent = title;
  document.getElementById('confirm-text').textContent = text;
  const extra = document.getElementById('confirm-extra');
  ok.textContent = confirmLabel;
  ok.className = danger ? 'danger' : '';
  extra.replaceChildren();
  let input = null;
  if (typed) {
    input = h('input', {id: 'confirm-typed', autocomplete: 'off', spellcheck: 'false'});
    extra.append(h('label', {for: 'confirm-typed'}, `Type ${typed} to confirm`), input);
    ok.disabled = true;
    input.addEventListener('input', () => {
      ok.disabled = input.value !== typed;
    });
  } else {
    ok.disabled = false;
  }
  return new Promise((resolve) => {
    dialog.returnValue = '';
    dialog.addEventListener('close', () => {
      resolve(dialog.returnValue === 'ok' && (!typed || (input && input.value === typed)));
    }, {once: true});
    dialog.showModal();
    (input || document.getElementById('confirm-cancel')).focus();
  });
}

/** A view's heading (focused after navigation) and intro. */
export function viewHeader(title, intro) {
  return [h('h1', {tabindex: '-1', class: 'view-title'}, title), intro ? h('p', {class: 'intro'}, intro) : null];
}

/** Saves a blob as a download. */
export function download(blob, filename) {
  const url = URL.createObjectURL(blob);
  const link = h('a', {href: url, download: filename, class: 'visually-hidden'}, filename);
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10000);
}

/**
 * Whether the agent (and, when asked, the owner) the view needs is chosen; appends a note to root
 * when not.
 */
export function needsContext(root, session, {owner = true} = {}) {
  if (!session.agent) {
    root.append(h('p', {class: 'callout'}, 'Choose an agent above (the agent id your application uses, e.g. support-bot).'));
    return false;
  }
  if (owner && !session.owner) {
    root.append(h('p', {class: 'callout'}, 'Choose an owner above: type an owner key such as user:42, or browse the owners.'));
    return false;
  }
  return true;
}

/**
 * Loads what a part of a view shows: a loading note in `target` meanwhile, then the answer, or
 * undefined with the error shown in `target` (for a route this host does not have, the `missing`
 * text when given), or undefined when a later load of the same target started meanwhile.
 */
export async function loadInto(target, what, fetcher, missing) {
  const seq = (loads.get(target) || 0) + 1;
  loads.set(target, seq);
  fill(target, h('p', {class: 'muted'}, `Loading ${what.toLowerCase()}…`));
  try {
    const answer = await fetcher();
    // a later load of the same part owns it now (answers may arrive out of order)
    return loads.get(target) === seq ? answer : undefined;
  } catch (error) {
    if (loads.get(target) === seq) {
      fill(target, missing && error.missingRoute ? h('p', {class: 'muted'}, missing) : errorBox(error, what));
    }
    return undefined;
  }
}

/** The number of the latest load of each part of a view. */
const loads = new WeakMap();

/** Starts a view: its heading and intro, then whether the agent (and owner) it needs are chosen. */
export function startView(root, session, title, intro, needs) {
  root.append(...viewHeader(title, intro));
  return needsContext(root, session, needs);
}
