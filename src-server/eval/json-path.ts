/**
 * The JSONPath subset evaluation columns need: `$`, `.key`, `['key']`, `[n]` (negative from the
 * end), `[*]`/`.*`, `[a,b]`, `[start:end]` and recursive descent `..key`. Returns every match in
 * document order.
 */
type Step =
  | { kind: 'key'; keys: string[] }
  | { kind: 'index'; indexes: number[] }
  | { kind: 'slice'; start?: number; end?: number }
  | { kind: 'wildcard' }
  | { kind: 'descend'; step: Step };

export function parseJsonPath(path: string): Step[] {
  let i = 0;
  const steps: Step[] = [];
  const text = path.trim();
  if (text.startsWith('$')) i = 1;
  const fail = (why: string): never => {
    throw new Error(`Invalid JSONPath '${path}' at ${i}: ${why}`);
  };
  const readName = () => {
    const start = i;
    while (i < text.length && /[^.[\]\s]/.test(text[i])) i++;
    if (i === start) fail('expected a key');
    return text.slice(start, i);
  };
  const readBracket = (): Step => {
    i++;
    const close = findClose(text, i);
    if (close < 0) fail("missing ']'");
    const inner = text.slice(i, close).trim();
    i = close + 1;
    if (inner === '*') return { kind: 'wildcard' };
    const slice = /^(-?\d*)\s*:\s*(-?\d*)$/.exec(inner);
    if (slice) return { kind: 'slice', start: slice[1] ? Number(slice[1]) : undefined, end: slice[2] ? Number(slice[2]) : undefined };
    const parts = splitTopLevel(inner);
    if (parts.every((p) => /^-?\d+$/.test(p))) return { kind: 'index', indexes: parts.map(Number) };
    const keys = parts.map((p) => {
      const quoted = /^'((?:[^'\\]|\\.)*)'$|^"((?:[^"\\]|\\.)*)"$/.exec(p);
      if (!quoted) fail(`unsupported selector [${inner}]`);
      return (quoted![1] ?? quoted![2]).replace(/\\(.)/g, '$1');
    });
    return { kind: 'key', keys };
  };
  while (i < text.length) {
    const ch = text[i];
    if (text.startsWith('..', i)) {
      i += 2;
      if (text[i] === '[') steps.push({ kind: 'descend', step: readBracket() });
      else if (text[i] === '*') {
        i++;
        steps.push({ kind: 'descend', step: { kind: 'wildcard' } });
      } else steps.push({ kind: 'descend', step: { kind: 'key', keys: [readName()] } });
    } else if (ch === '.') {
      i++;
      if (text[i] === '*') {
        i++;
        steps.push({ kind: 'wildcard' });
      } else steps.push({ kind: 'key', keys: [readName()] });
    } else if (ch === '[') steps.push(readBracket());
    else if (steps.length === 0 && i === 0) steps.push({ kind: 'key', keys: [readName()] });
    else fail(`unexpected '${ch}'`);
  }
  return steps;
}

function findClose(text: string, from: number): number {
  let quote: string | null = null;
  for (let i = from; i < text.length; i++) {
    const ch = text[i];
    if (quote) {
      if (ch === '\\') i++;
      else if (ch === quote) quote = null;
    } else if (ch === "'" || ch === '"') quote = ch;
    else if (ch === ']') return i;
  }
  return -1;
}

function splitTopLevel(inner: string): string[] {
  const parts: string[] = [];
  let quote: string | null = null;
  let start = 0;
  for (let i = 0; i < inner.length; i++) {
    const ch = inner[i];
    if (quote) {
      if (ch === '\\') i++;
      else if (ch === quote) quote = null;
    } else if (ch === "'" || ch === '"') quote = ch;
    else if (ch === ',') {
      parts.push(inner.slice(start, i).trim());
      start = i + 1;
    }
  }
  parts.push(inner.slice(start).trim());
  return parts;
}

function children(value: unknown): unknown[] {
  if (Array.isArray(value)) return value;
  if (value && typeof value === 'object') return Object.values(value);
  return [];
}

function apply(step: Step, value: unknown): unknown[] {
  switch (step.kind) {
    case 'key':
      if (!value || typeof value !== 'object' || Array.isArray(value)) return [];
      return step.keys.filter((k) => Object.prototype.hasOwnProperty.call(value, k)).map((k) => (value as Record<string, unknown>)[k]);
    case 'index':
      if (!Array.isArray(value)) return [];
      return step.indexes.map((n) => (n < 0 ? value.length + n : n)).filter((n) => n >= 0 && n < value.length).map((n) => value[n]);
    case 'slice': {
      if (!Array.isArray(value)) return [];
      return value.slice(step.start, step.end);
    }
    case 'wildcard':
      return children(value);
    case 'descend': {
      const out: unknown[] = [];
      const visit = (node: unknown) => {
        out.push(...apply(step.step, node));
        for (const child of children(node)) visit(child);
      };
      visit(value);
      return out;
    }
  }
}

export function queryJsonPath(document: unknown, path: string): unknown[] {
  let current = [document];
  for (const step of parseJsonPath(path)) current = current.flatMap((node) => apply(step, node));
  return current;
}
