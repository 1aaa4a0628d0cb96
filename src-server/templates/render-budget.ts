import type Nunjucks from 'nunjucks';
import { nunjucks } from './nunjucks';

/**
 * What one jinja2 render may cost. Rendering is synchronous on the server's event loop, so a
 * template that allocates or loops without end takes the whole server with it: these limits are
 * checked as the output is produced and inside loops, and a render past one fails with a message
 * naming it (a 422 for a fetch, a cell error in a run).
 */
export const RENDER_OUTPUT_LIMIT = 4_000_000;
export const RENDER_TIME_LIMIT_MS = 1000;
/** Items `range()` may produce, and the count filters that build lists (`batch`, `slice`) may ask for. */
export const RANGE_LIMIT = 10_000;

class BudgetExceeded extends Error {}

interface Budget {
  deadline: number;
  output: number;
  ticks: number;
}

// Renders are synchronous and never nest, so the one running render's budget can live here.
let active: Budget | null = null;

export function withBudget<T>(render: () => T): T {
  active = { deadline: Date.now() + RENDER_TIME_LIMIT_MS, output: 0, ticks: 0 };
  try {
    return render();
  } finally {
    active = null;
  }
}

const overTime = () => new BudgetExceeded(`rendering took longer than the limit of ${RENDER_TIME_LIMIT_MS} ms`);
const overSize = () => new BudgetExceeded(`the rendered text is longer than the limit of ${RENDER_OUTPUT_LIMIT} characters`);

/** Called on every lookup, call, print and loop iteration; reads the clock every 64th time. */
export function tick(): void {
  if (active && (++active.ticks & 63) === 0 && Date.now() > active.deadline) throw overTime();
}

/** Counts printed characters against the output limit. */
export function spend(chars: number): void {
  if (!active) return;
  active.output += chars;
  if (active.output > RENDER_OUTPUT_LIMIT) throw overSize();
}

/** A string (or SafeString) longer than the whole output may be is refused wherever it shows up. */
export function checkSize(value: unknown): void {
  if (textLength(value) > RENDER_OUTPUT_LIMIT) throw overSize();
}

/** `.length` of a string does not flatten a concatenation, so this is cheap even on a huge one. */
function textLength(value: unknown): number {
  if (typeof value === 'string') return value.length;
  if (value instanceof nunjucks().runtime.SafeString) return (value as unknown as { length: number }).length;
  return 0;
}

/** Characters `String(value)` would produce (arrays join with commas), counted without building it. */
function joinedLength(value: unknown, depth = 0): number {
  if (Array.isArray(value)) {
    if (depth > 64) return Infinity;
    let total = Math.max(0, value.length - 1);
    for (const item of value) {
      total += joinedLength(item, depth + 1);
      if (total > RENDER_OUTPUT_LIMIT) return total;
    }
    return total;
  }
  if (value === null || value === undefined) return 0;
  if (typeof value === 'object' && !(value instanceof nunjucks().runtime.SafeString)) return 15; // "[object Object]"
  return textLength(value) || String(value).length;
}

type Filter = (this: unknown, ...args: unknown[]) => unknown;

/**
 * Filters whose output can be far larger than their input, each with the size it would build,
 * checked before it is built. Every other filter's output is bounded by its input's size.
 */
const projectedSize: Record<string, (...args: any[]) => number> = {
  center: (str: unknown, width: unknown) => Math.max(textLength(str), Number(width) || 0),
  indent: (str: unknown, width: unknown) => {
    const text = typeof str === 'string' ? str : String(str ?? '');
    const lines = text.split('\n').length;
    const pad = typeof width === 'string' ? width.length : Number(width) || 4;
    return text.length + lines * pad;
  },
  replace: (str: unknown, old: unknown, replacement: unknown) => {
    const length = textLength(str) || String(str ?? '').length;
    const oldLength = typeof old === 'string' || typeof old === 'number' ? String(old).length : 1;
    const occurrences = oldLength === 0 ? length + 1 : Math.floor(length / oldLength);
    return length + occurrences * joinedLength(replacement);
  },
  join: (arr: unknown, separator: unknown, attr: unknown) => {
    if (!Array.isArray(arr)) return 0;
    const items = typeof attr === 'string' ? arr.map((v) => (v && typeof v === 'object' && Object.hasOwn(v, attr) ? (v as Record<string, unknown>)[attr] : undefined)) : arr;
    return joinedLength(items) - Math.max(0, items.length - 1) + Math.max(0, items.length - 1) * joinedLength(separator ?? '');
  },
  batch: (_arr: unknown, lineCount: unknown, fill: unknown) => (fill !== undefined && Number(lineCount) > RANGE_LIMIT ? Infinity : 0),
  slice: (_arr: unknown, slices: unknown) => (Number(slices) > RANGE_LIMIT ? Infinity : 0),
  string: (value: unknown) => joinedLength(value),
};

/** Wraps every filter of `env`: inputs and outputs within the output limit, amplifiers checked first. */
export function guardFilters(env: Nunjucks.Environment): void {
  const filters = (env as unknown as { filters: Record<string, Filter> }).filters;
  for (const [name, filter] of Object.entries(filters)) {
    const projected = projectedSize[name];
    env.addFilter(name, function guarded(this: unknown, ...args: unknown[]) {
      tick();
      args.forEach(checkSize);
      if (projected && projected(...args) > RENDER_OUTPUT_LIMIT) throw overSize();
      const result = filter.apply(this, args);
      checkSize(result);
      return result;
    });
  }
}

/**
 * nunjucks' `r/…/` literals compile to JavaScript regular expressions, whose backtracking can hold
 * the event loop for minutes on a short input. Jinja2 has no such literal, so a template using one
 * is refused rather than run.
 */
interface Token {
  type: string;
}
const lexer = () => (nunjucks() as unknown as { lexer: { lex(text: string, opts: object): { nextToken(): Token | null } } }).lexer;

export function refuseRegexLiterals(text: string): void {
  const tokens = lexer().lex(text, {});
  for (let token = tokens.nextToken(); token; token = tokens.nextToken()) {
    if (token.type === 'regex') throw new Error('regular expression literals (r/…/) are not supported in templates');
  }
}
