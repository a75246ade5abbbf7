// A line diff by longest common subsequence, for "edit with a diff before save".

/** Most cells of the LCS table; past it the unchanged head and tail are kept and the middle replaced. */
const MAX_CELLS = 4_000_000;

function lines(text) {
  if (text === '') return [];
  const list = text.split('\n');
  if (list[list.length - 1] === '') list.pop();
  return list;
}

/**
 * The edit script turning `before` into `after`, line by line: [{op: 'same'|'del'|'add', text}],
 * in order, deletions before additions at each change. Common head and tail lines are matched first,
 * then the middle by an LCS table.
 */
export function diffLines(before, after) {
  const a = lines(before);
  const b = lines(after);
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head
    && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++;
  const midA = a.slice(head, a.length - tail);
  const midB = b.slice(head, b.length - tail);
  const out = a.slice(0, head).map((text) => ({op: 'same', text}));
  if ((midA.length + 1) * (midB.length + 1) > MAX_CELLS) {
    midA.forEach((text) => out.push({op: 'del', text}));
    midB.forEach((text) => out.push({op: 'add', text}));
  } else {
    out.push(...lcsScript(midA, midB));
  }
  a.slice(a.length - tail).forEach((text) => out.push({op: 'same', text}));
  return out;
}

function lcsScript(a, b) {
  const n = a.length;
  const m = b.length;
  const width = m + 1;
  // table[i][j]: LCS length of a[i..] and b[j..]
  const table = new Uint32Array((n + 1) * width);
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      table[i * width + j] = a[i] === b[j]
        ? table[(i + 1) * width + j + 1] + 1
        : Math.max(table[(i + 1) * width + j], table[i * width + j + 1]);
    }
  }
  const out = [];
  let i = 0;
  let j = 0;
  while (i < n && j < m) {
    if (a[i] === b[j]) {
      out.push({op: 'same', text: a[i]});
      i++;
      j++;
    } else if (table[(i + 1) * width + j] >= table[i * width + j + 1]) {
      out.push({op: 'del', text: a[i]});
      i++;
    } else {
      out.push({op: 'add', text: b[j]});
      j++;
    }
  }
  while (i < n) out.push({op: 'del', text: a[i++]});
  while (j < m) out.push({op: 'add', text: b[j++]});
  return out;
}

/** Counts of added and removed lines. */
export function diffStats(script) {
  return {
    added: script.filter((l) => l.op === 'add').length,
    removed: script.filter((l) => l.op === 'del').length,
  };
}

/**
 * The script cut to the changed lines with `context` unchanged lines around each change; runs of
 * unchanged lines left out become {op: 'skip', count}.
 */
export function hunks(script, context = 3) {
  const keep = new Array(script.length).fill(false);
  script.forEach((line, index) => {
    if (line.op === 'same') return;
    for (let k = Math.max(0, index - context); k <= Math.min(script.length - 1, index + context); k++) keep[k] = true;
  });
  const out = [];
  let skipped = 0;
  script.forEach((line, index) => {
    if (keep[index]) {
      if (skipped) out.push({op: 'skip', count: skipped});
      skipped = 0;
      out.push(line);
    } else {
      skipped++;
    }
  });
  if (skipped) out.push({op: 'skip', count: skipped});
  return out;
}
