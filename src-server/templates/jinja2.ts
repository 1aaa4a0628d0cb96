import nunjucks from 'nunjucks';
import type { TemplateFormatEngine } from './index';

/**
 * Jinja2 through nunjucks, sandboxed: a template sees the variables it is given and nothing else.
 * - No loaders, so `include`/`import`/`extends` cannot read files.
 * - Member lookup sees only own properties of plain data and never a function's members, which
 *   closes the classic escape (`"".constructor.constructor("return process")()`).
 * - Names inherited from Object.prototype never resolve as variables.
 * - `range` is capped, so one template cannot allocate the machine away.
 * Undefined values render as "" (nunjucks' default; `throwOnUndefined` stays off).
 */
const runtime = (nunjucks as unknown as { runtime: Record<string, unknown> }).runtime;

const BLOCKED = new Set([...Object.getOwnPropertyNames(Object.prototype), 'prototype', 'constructor', '__proto__']);
export const RANGE_LIMIT = 10_000;

function memberLookup(obj: unknown, key: unknown): unknown {
  if (obj === null || obj === undefined || typeof obj === 'function') return undefined;
  const name = typeof key === 'number' ? String(key) : typeof key === 'string' ? key : undefined;
  if (name === undefined || BLOCKED.has(name)) return undefined;
  if (typeof obj === 'string') return name === 'length' || /^\d+$/.test(name) ? (obj as unknown as Record<string, unknown>)[name] : undefined;
  if (typeof obj !== 'object' || !Object.hasOwn(obj, name)) return undefined;
  const value = (obj as Record<string, unknown>)[name];
  // Own functions exist only on nunjucks' own helpers (cycler, joiner); JSON data has none.
  return typeof value === 'function' ? (...args: unknown[]) => (value as (...a: unknown[]) => unknown).apply(obj, args) : value;
}

const contextOrFrameLookup = runtime.contextOrFrameLookup as (context: unknown, frame: unknown, name: string) => unknown;

const sandboxRuntime = {
  ...runtime,
  memberLookup,
  contextOrFrameLookup: (context: unknown, frame: unknown, name: string) =>
    BLOCKED.has(name) ? undefined : contextOrFrameLookup(context, frame, name),
};

export class TemplateRenderError extends Error {}

const env = new nunjucks.Environment([], { autoescape: false, throwOnUndefined: false });
env.addGlobal('range', (start: number, stop?: number, step = 1) => {
  const [from, to] = stop === undefined ? [0, start] : [start, stop];
  if (!Number.isFinite(from) || !Number.isFinite(to) || !Number.isFinite(step) || step === 0) return [];
  const count = Math.max(0, Math.ceil((to - from) / step));
  if (count > RANGE_LIMIT) throw new TemplateRenderError(`range() is limited to ${RANGE_LIMIT} items`);
  return Array.from({ length: count }, (_, i) => from + i * step);
});

type RootRenderFunc = (env: unknown, context: unknown, frame: unknown, runtime: unknown, cb: unknown) => void;

// Compiling a template builds a JS function (about 0.2 ms); fetches render the same few texts
// again and again, so keep the compiled ones (FIFO, bounded).
const compiled = new Map<string, nunjucks.Template>();
const MAX_COMPILED = 1000;

function compile(text: string): nunjucks.Template {
  let template = compiled.get(text);
  if (template) return template;
  template = new nunjucks.Template(text, env, undefined, true);
  const internal = template as unknown as { rootRenderFunc: RootRenderFunc };
  const root = internal.rootRenderFunc;
  // Every lookup in the compiled code goes through the runtime handed to the root function
  // (blocks and macros receive it from there), so swapping it here sandboxes the whole template.
  internal.rootRenderFunc = (e, context, frame, _runtime, cb) => root(e, context, frame, sandboxRuntime, cb);
  if (compiled.size >= MAX_COMPILED) compiled.delete(compiled.keys().next().value!);
  compiled.set(text, template);
  return template;
}

// nunjucks wraps causes as "Template render error: (unknown path)\n  Error: <cause>"; keep the cause.
const message = (error: unknown) =>
  (error instanceof Error ? error.message : String(error)).trim().split('\n').pop()!.trim().replace(/^(\(unknown path\)\s*)?(Error:\s*)?/, '');

export const jinja2: TemplateFormatEngine = {
  id: 'jinja2',
  description: 'Jinja2 (`{{ variable }}`, `{% if %}`, `{% for %}`, filters), sandboxed; an undefined variable renders as "".',
  check(text) {
    try {
      compile(text);
      return null;
    } catch (error) {
      return message(error);
    }
  },
  render(text, variables) {
    try {
      // A null-prototype copy: the data object itself lends no inherited names.
      return compile(text).render(Object.assign(Object.create(null) as object, variables));
    } catch (error) {
      throw new TemplateRenderError(message(error));
    }
  },
};
