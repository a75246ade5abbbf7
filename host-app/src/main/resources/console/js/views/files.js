// Workspace files: the core files and daily notes, edit with a line diff before save, snapshot
// export, and import after its preview (create / update / skip).

import {h, fill, field, select, when, badge, note, id} from '../dom.js';
import {call, get, put, agentPath, filePath} from '../api.js';
import {session, canWrite} from '../state.js';
import {startView, loadInto, errorBox, toast, download} from '../ui.js';
import {diffLines, diffStats, hunks} from '../diff.js';

const CORE = ['AGENTS.md', 'SOUL.md', 'PROFILE.md', 'MEMORY.md', 'KNOWLEDGE.md'];
const DAILY = /^memory\/\d{4}-\d{2}-\d{2}\.md$/;

export async function render(root) {
  if (!startView(root, session, 'Workspace files',
    'The Markdown files the agent keeps: core files in front of every conversation, daily notes it searches. '
    + 'Personal files belong to the owner; team and global files are shared.')) return;
  const editor = h('div', {class: 'file-editor', id: 'file-editor'});
  const list = h('div', {class: 'file-list', id: 'file-list'});
  root.append(h('div', {class: 'split'}, list, editor), snapshots());
  await loadList(list, editor);
}

async function loadList(list, editor) {
  const answer = await loadInto(list, 'Workspace files', () => get(agentPath(session.agent, 'workspace/files'), {ownerKey: session.owner}));
  if (!answer) return;
  const files = answer.files || [];
  const core = files.filter((f) => CORE.includes(f.filename));
  const daily = files.filter((f) => DAILY.test(f.filename)).sort((x, y) => y.filename.localeCompare(x.filename));
  const other = files.filter((f) => !CORE.includes(f.filename) && !DAILY.test(f.filename));
  const group = (title, entries) => h('section', {class: 'file-group', 'aria-label': title},
    h('h2', {}, title),
    entries.length === 0 ? note('None.') : h('ul', {class: 'plain file-entries'}, entries.map((f) => h('li', {},
      h('button', {type: 'button', class: 'link', 'data-file': `${f.scope}:${f.filename}`,
        on: {click: () => openFile(editor, f, () => loadList(list, editor))}}, f.filename),
      ' ', badge(f.scope, 'scope'), f.enabled ? ' ' : null, f.enabled ? badge('in prompt', 'active') : null,
      h('span', {class: 'muted'}, ` ${f.fileSize ?? 0} bytes · ${when(f.updateTime)}`)))));
  fill(list, group('Core files', core), group('Daily notes', daily), other.length ? group('Other files', other) : null);
}

async function openFile(editor, entry, reloadList) {
  const file = await loadInto(editor, entry.filename, () => get(filePath(session.agent, entry.filename), {ownerKey: session.owner, scope: entry.scope}));
  if (!file) return;
  const original = file.content || '';
  const errors = h('div', {class: 'errors'});
  const heading = h('h2', {tabindex: '-1'}, entry.filename);
  const view = h('pre', {class: 'file-content', tabindex: '0', 'aria-label': `${entry.filename} content`}, original);
  const parts = [heading,
    h('p', {class: 'muted'}, `${file.scope || entry.scope} · updated ${when(file.updateTime || entry.updateTime)}`), view, errors];
  if (canWrite()) {
    parts.splice(2, 0, h('div', {class: 'row'}, h('button', {type: 'button', on: {click: () => {
      editFile(editor, entry, file, original, reloadList);
    }}}, `Edit ${entry.filename}`)));
  }
  fill(editor, ...parts);
  heading.focus();
}

function editFile(editor, entry, file, original, reloadList) {
  const areaId = id('file-text');
  const area = h('textarea', {id: areaId, rows: 16, class: 'code', spellcheck: 'false'}, original);
  area.value = original;
  // a personal copy is written for the owner (a token bound to an owner writes only those)
  const personalOnly = session.boundOwner || session.ownerPrefix;
  const scopeChoice = select(personalOnly ? [['personal', 'personal']]
    : [['personal', 'personal (this owner)'], ['team', 'team (every owner)'], ['global', 'global']],
  entry.scope === 'team' && ['PROFILE.md', 'MEMORY.md'].includes(entry.filename) ? 'personal' : entry.scope);
  const errors = h('div', {class: 'errors'});
  const review = h('div', {class: 'review', id: 'file-review'});
  const heading = h('h2', {tabindex: '-1'}, `Editing ${entry.filename}`);
  fill(editor, heading,
    entry.scope === 'team' && ['PROFILE.md', 'MEMORY.md'].includes(entry.filename)
      ? note('The owner has no personal copy yet: this is the team file. Saving as personal gives the owner their own copy.')
      : null,
    h('label', {for: areaId}, `Content of ${entry.filename}`), area,
    field('Save as scope', scopeChoice).wrap,
    h('div', {class: 'row'},
      h('button', {type: 'button', on: {click: () => showReview(review, entry, original, area, scopeChoice, errors, editor, reloadList)}}, 'Review changes'),
      h('button', {type: 'button', class: 'secondary', on: {click: () => openFile(editor, entry, reloadList)}}, 'Cancel')),
    review, errors);
  area.focus();
}

/** Renders a diff script as rows with +/- marks (and words for screen readers). */
export function diffView(script, label) {
  const shown = hunks(script, 3);
  return h('div', {class: 'diff', role: 'region', tabindex: '0', 'aria-label': label},
    shown.map((line) => {
      if (line.op === 'skip') return h('div', {class: 'diff-skip'}, `… ${line.count} unchanged line${line.count === 1 ? '' : 's'}`);
      const mark = line.op === 'add' ? '+' : line.op === 'del' ? '−' : ' ';
      const word = line.op === 'add' ? 'added: ' : line.op === 'del' ? 'removed: ' : '';
      return h('div', {class: `diff-${line.op}`}, h('span', {class: 'diff-mark', 'aria-hidden': 'true'}, mark),
        word ? h('span', {class: 'visually-hidden'}, word) : null, line.text || ' ');
    }));
}

function showReview(review, entry, original, area, scopeChoice, errors, editor, reloadList) {
  const script = diffLines(original, area.value);
  const {added, removed} = diffStats(script);
  const title = h('h3', {tabindex: '-1'}, 'Changes to save');
  if (added === 0 && removed === 0) {
    fill(review, title, note('No line changed: nothing to save.'));
    title.focus();
    return;
  }
  const save = h('button', {type: 'button', on: {click: async () => {
    save.disabled = true;
    errors.replaceChildren();
    try {
      const answer = await put(filePath(session.agent, entry.filename),
        {content: area.value, ownerKey: session.owner || undefined, scope: scopeChoice.value});
      toast(`Saved ${entry.filename}: ${answer.bytesWritten ?? ''} bytes (${answer.message || 'written'}).`);
      await reloadList();
      await openFile(editor, {...entry, scope: answer.scope || scopeChoice.value}, reloadList);
    } catch (error) {
      errors.append(errorBox(error, `Saving ${entry.filename}`));
      save.disabled = false;
    }
  }}}, `Save ${entry.filename}`);
  fill(review, title,
    h('p', {id: 'diff-summary'}, `${added} line${added === 1 ? '' : 's'} added, ${removed} removed.`),
    diffView(script, `Changes to ${entry.filename}`),
    h('div', {class: 'row'}, save));
  title.focus();
}

function snapshots() {
  const out = h('div', {class: 'snapshot-out', id: 'import-out'});
  const exportScope = select([['personal', 'personal (this owner)'], ['team', 'team'], ['global', 'global']], 'personal');
  const importScope = select([['personal', 'personal (this owner)'], ['team', 'team'], ['global', 'global']], 'personal');
  const fileInput = h('input', {type: 'file', accept: '.zip,application/zip', name: 'snapshot'});
  const exportErrors = h('div', {class: 'errors'});
  const exportButton = h('button', {type: 'button', class: 'secondary', on: {click: async () => {
    exportButton.disabled = true;
    exportErrors.replaceChildren();
    try {
      const {blob, filename} = await call('GET', agentPath(session.agent, 'workspace/memory/export'),
        {params: {ownerKey: session.owner, scope: exportScope.value}, as: 'blob'});
      download(blob, filename);
      toast(`Exported ${filename}.`);
    } catch (error) {
      exportErrors.append(errorBox(error, 'Export'));
    } finally {
      exportButton.disabled = false;
    }
  }}}, 'Export snapshot');
  const previewButton = h('button', {type: 'submit'}, 'Preview import');
  const importForm = h('form', {class: 'stack', 'aria-label': 'Import a snapshot', on: {submit: async (e) => {
    e.preventDefault();
    const file = fileInput.files[0];
    if (!file) {
      fill(out, h('p', {class: 'error', role: 'alert'}, 'Choose a snapshot ZIP first.'));
      return;
    }
    previewButton.disabled = true;
    try {
      await previewImport(out, file, importScope.value);
    } finally {
      previewButton.disabled = false;
    }
  }}},
  h('div', {class: 'row'}, field('Snapshot ZIP', fileInput).wrap, field('Import into scope', importScope).wrap, previewButton));
  return h('section', {class: 'panel snapshots', 'aria-labelledby': 'snapshots-title'},
    h('h2', {id: 'snapshots-title'}, 'Snapshots'),
    h('div', {class: 'row'}, field('Export scope', exportScope).wrap, exportButton),
    exportErrors,
    canWrite() ? importForm : note('This token reads only: importing is not offered.'),
    out);
}

function importParams(scope) {
  return {params: {ownerKey: scope === 'personal' ? session.owner : undefined, scope}};
}

async function previewImport(out, file, scope) {
  const preview = await loadInto(out, 'Import preview', () => call('POST', agentPath(session.agent, 'workspace/memory/import/preview'),
    {...importParams(scope), body: file, contentType: 'application/zip'}));
  if (!preview) return;
  const entries = preview.entries || [];
  const apply = h('button', {type: 'button', on: {click: async () => {
    apply.disabled = true;
    try {
      const done = await call('POST', agentPath(session.agent, 'workspace/memory/import'),
        {...importParams(scope), body: file, contentType: 'application/zip'});
      fill(out, h('h3', {tabindex: '-1'}, 'Imported'),
        h('p', {id: 'import-result'}, `${done.created ?? 0} created, ${done.updated ?? 0} updated, ${done.skipped ?? 0} skipped. ${done.message || ''}`));
      out.querySelector('h3').focus();
      const list = document.getElementById('file-list');
      const editor = document.getElementById('file-editor');
      if (list && editor) await loadList(list, editor);
    } catch (error) {
      out.append(errorBox(error, 'Import'));
      apply.disabled = false;
    }
  }}}, 'Apply import');
  const title = h('h3', {tabindex: '-1'}, `Preview of ${file.name}`);
  fill(out, title,
    h('p', {id: 'import-summary'}, `${preview.created ?? 0} to create, ${preview.updated ?? 0} to update, ${preview.skipped ?? 0} to skip. Nothing is written until you apply.`),
    h('ul', {class: 'plain'}, entries.map((entry) => h('li', {},
      badge(entry.action, entry.action === 'skip' ? 'muted' : entry.action === 'create' ? 'active' : 'warn'), ' ',
      entry.filename, entry.reason ? h('span', {class: 'muted'}, ` (${entry.reason})`) : null))),
    (preview.ignored || []).length ? h('p', {class: 'muted'}, `Ignored: ${preview.ignored.map((i) => i.filename || i.name || JSON.stringify(i)).join(', ')}`) : null,
    h('div', {class: 'row'}, apply,
      h('button', {type: 'button', class: 'secondary', on: {click: () => out.replaceChildren()}}, 'Discard')));
  title.focus();
}
