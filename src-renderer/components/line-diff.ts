export type DiffRow = { left: string | null; right: string | null; kind: 'same' | 'changed' | 'removed' | 'added' };

/**
 * Side-by-side line diff from a longest-common-subsequence table. Prompts are short (hundreds of
 * lines at most), so the quadratic table is cheap; beyond the cap the lines are paired as-is.
 */
export function lineDiff(a: string[], b: string[], cap = 2000): DiffRow[] {
  if (a.length * b.length > cap * cap) {
    return Array.from({ length: Math.max(a.length, b.length) }, (_, i) => ({
      left: a[i] ?? null,
      right: b[i] ?? null,
      kind: a[i] === b[i] ? 'same' : a[i] === undefined ? 'added' : b[i] === undefined ? 'removed' : 'changed',
    }));
  }
  const lcs = Array.from({ length: a.length + 1 }, () => new Uint32Array(b.length + 1));
  for (let i = a.length - 1; i >= 0; i--) {
    for (let j = b.length - 1; j >= 0; j--) lcs[i][j] = a[i] === b[j] ? lcs[i + 1][j + 1] + 1 : Math.max(lcs[i + 1][j], lcs[i][j + 1]);
  }
  const rows: DiffRow[] = [];
  let removed: string[] = [];
  let added: string[] = [];
  const flush = () => {
    // A run of removals next to a run of additions reads best paired line by line, as "changed".
    for (let k = 0; k < Math.max(removed.length, added.length); k++) {
      const left = removed[k] ?? null;
      const right = added[k] ?? null;
      rows.push({ left, right, kind: left !== null && right !== null ? 'changed' : left !== null ? 'removed' : 'added' });
    }
    removed = [];
    added = [];
  };
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (i < a.length && j < b.length && a[i] === b[j]) {
      flush();
      rows.push({ left: a[i], right: b[j], kind: 'same' });
      i++;
      j++;
    } else if (j < b.length && (i === a.length || lcs[i][j + 1] >= lcs[i + 1][j])) {
      added.push(b[j++]);
    } else {
      removed.push(a[i++]);
    }
  }
  flush();
  return rows;
}
