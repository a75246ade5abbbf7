// The console's line diff (src/main/resources/console/js/diff.js), the one the page shows before a
// workspace file is saved: node's test runner, no browser.

import {test} from 'node:test';
import assert from 'node:assert/strict';
import {diffLines, diffStats, hunks} from '../../main/resources/console/js/diff.js';

const before = (script) => script.filter((l) => l.op !== 'add').map((l) => l.text);
const after = (script) => script.filter((l) => l.op !== 'del').map((l) => l.text);
const lines = (text) => (text === '' ? [] : text.replace(/\n$/, '').split('\n'));

/** The longest common subsequence's length, by the textbook table. */
function lcsLength(a, b) {
  const table = Array.from({length: a.length + 1}, () => new Array(b.length + 1).fill(0));
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      table[i][j] = a[i - 1] === b[j - 1] ? table[i - 1][j - 1] + 1 : Math.max(table[i - 1][j], table[i][j - 1]);
    }
  }
  return table[a.length][b.length];
}

/** A seeded generator, so that a failure can be replayed. */
function random(seed) {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

test('an unchanged text is all unchanged lines', () => {
  const script = diffLines('# MEMORY\n\n- a\n', '# MEMORY\n\n- a\n');
  assert.deepEqual(script.map((l) => l.op), ['same', 'same', 'same']);
  assert.deepEqual(diffStats(script), {added: 0, removed: 0});
});

test('a line added in the middle is one addition between unchanged lines', () => {
  const script = diffLines('## Projects\n- a\n- b\n', '## Projects\n- a\n- new\n- b\n');
  assert.deepEqual(script, [
    {op: 'same', text: '## Projects'}, {op: 'same', text: '- a'}, {op: 'add', text: '- new'}, {op: 'same', text: '- b'},
  ]);
});

test('a changed line is its removal then its addition', () => {
  const script = diffLines('x\nold\ny\n', 'x\nnew\ny\n');
  assert.deepEqual(script.map((l) => `${l.op} ${l.text}`), ['same x', 'del old', 'add new', 'same y']);
  assert.deepEqual(diffStats(script), {added: 1, removed: 1});
});

test('from and to an empty file', () => {
  assert.deepEqual(diffLines('', 'a\nb\n').map((l) => l.op), ['add', 'add']);
  assert.deepEqual(diffLines('a\nb\n', '').map((l) => l.op), ['del', 'del']);
  assert.deepEqual(diffLines('', ''), []);
});

test('a missing final newline is no line of its own', () => {
  assert.deepEqual(diffLines('a\nb', 'a\nb\n').map((l) => l.op), ['same', 'same']);
});

test('random edits: the script rebuilds both texts and keeps a longest common subsequence', () => {
  const next = random(30);
  const words = ['- tea', '- coffee', '## A', '## B', '', '- x', '- y'];
  for (let round = 0; round < 300; round++) {
    const a = Array.from({length: Math.floor(next() * 12)}, () => words[Math.floor(next() * words.length)]);
    const b = Array.from({length: Math.floor(next() * 12)}, () => words[Math.floor(next() * words.length)]);
    const script = diffLines(a.join('\n'), b.join('\n'));
    assert.deepEqual(before(script), lines(a.join('\n')), `round ${round}: before`);
    assert.deepEqual(after(script), lines(b.join('\n')), `round ${round}: after`);
    assert.equal(script.filter((l) => l.op === 'same').length, lcsLength(lines(a.join('\n')), lines(b.join('\n'))),
      `round ${round}: ${JSON.stringify(a)} → ${JSON.stringify(b)}`);
  }
});

test('files too large for the table keep their common head and tail and still rebuild both texts', () => {
  const a = Array.from({length: 2500}, (_, i) => `line ${i}`);
  const b = [...a.slice(0, 10), ...Array.from({length: 2400}, (_, i) => `other ${i}`), ...a.slice(2000)];
  const script = diffLines(a.join('\n'), b.join('\n'));
  assert.deepEqual(before(script), a);
  assert.deepEqual(after(script), b);
  assert.deepEqual(script.slice(0, 10).map((l) => l.op), new Array(10).fill('same'));
  assert.equal(script[script.length - 1].op, 'same');
});

test('hunks keep the context around each change and count what they leave out', () => {
  const a = Array.from({length: 20}, (_, i) => `l${i}`);
  const b = [...a];
  b[10] = 'changed';
  const shown = hunks(diffLines(a.join('\n'), b.join('\n')), 2);
  assert.deepEqual(shown.map((l) => (l.op === 'skip' ? `skip ${l.count}` : `${l.op} ${l.text}`)), [
    'skip 8', 'same l8', 'same l9', 'del l10', 'add changed', 'same l11', 'same l12', 'skip 7',
  ]);
});
