import { readFileSync } from 'node:fs';
import { expect, test } from 'vitest';
import { columnTypes } from '../src-server/eval/columns/index';

test('docs/evaluations.md lists every registered column type with its own description', () => {
  const doc = readFileSync(new URL('../docs/evaluations.md', import.meta.url), 'utf8');
  const rows = new Map([...doc.matchAll(/^\| `([A-Z_]+)` \| (.+?) \| /gm)].map((m) => [m[1], m[2]]));
  for (const [id, type] of Object.entries(columnTypes)) expect(rows.get(id), id).toBe(type.description);
  expect([...rows.keys()].sort()).toEqual(Object.keys(columnTypes).sort());
});
