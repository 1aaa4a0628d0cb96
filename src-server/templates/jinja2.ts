import type Nunjucks from 'nunjucks';
import type { TemplateFormatEngine } from './index';
import { nunjucks } from './nunjucks';
import { checkSize, guardFilters, RANGE_LIMIT, refuseRegexLiterals, spend, tick, withBudget } from './render-budget';

/**
 * Jinja2 through nunjucks, sandboxed: a template sees the variables it is given and nothing else.
 * - No loaders, so `include`/`import`/`extends` cannot read files.
 * - Member lookup sees only own properties of plain data and never a function's members, which
 *   closes the classic escape (`"".constructor.constructor("return process")()`).
 * - Names inherited from Object.prototype never resolve as variables.
 * - `range` is capped, so one template cannot allocate the machine away.
 * - A render has a time budget and an output budget (render-budget below): `"x"|center(300000000)`
 *   killed the server with a heap out of memory, nested loops held it for 30 s (issue 10, item 4).
 * Undefined values render as "" (nunjucks' default; `throwOnUndefined` stays off).
 */
const BLOCKED = new Set([...Object.getOwnPropertyNames(Object.prototype), 'prototype', 'constructor', '__proto__']);

function memberLookup(obj: unknown, key: unknown): unknown {
  tick();
  if (obj === null || obj === undefined || typeof obj === 'function') return undefined;
  const name = typeof key === 'number' ? String(key) : typeof key === 'string' ? key : undefined;
  if (name === undefined || BLOCKED.has(name)) return undefined;
  if (typeof obj === 'string') {
    checkSize(obj);
    return name === 'length' || /^\d+$/.test(name) ? (obj as unknown as Record<string, unknown>)[name] : undefined;
  }
  if (typeof obj !== 'object' || !Object.hasOwn(obj, name)) return undefined;
  const value = (obj as Record<string, unknown>)[name];
  // Own functions exist only on nunjucks' own helpers (cycler, joiner); JSON data has none.
  return typeof value === 'function' ? (...args: unknown[]) => (value as (...a: unknown[]) => unknown).apply(obj, args) : value;
}

/**
 * The sandbox over nunjucks' runtime, built once at the first template (nunjucks.ts loads it then).
 */
function createSandbox(nj: typeof Nunjucks) {
  const runtime = (nj as unknown as { runtime: Record<string, unknown> }).runtime;
  const contextOrFrameLookup = runtime.contextOrFrameLookup as (context: unknown, frame: unknown, name: string) => unknown;
  const suppressValue = runtime.suppressValue as (value: unknown, autoescape: boolean) => string;
  const callWrap = runtime.callWrap as (fn: unknown, name: string, context: unknown, args: unknown[]) => unknown;
  const inOperator = runtime.inOperator as (key: unknown, value: unknown) => boolean;
  type FrameInstance = { set(name: string, value: unknown, resolveUp?: boolean): void; topLevel: boolean };
  const Frame = runtime.Frame as new (parent?: unknown, isolateWrites?: boolean) => FrameInstance;

  /**
   * Every frame of a render (loop bodies, macros, blocks) is one of these: each loop iteration sets
   * its variables here, so the time budget is checked in loops whose bodies output nothing, and no
   * string past the output limit can be stored in a variable to grow further.
   */
  class BudgetFrame extends Frame {
    override set(name: string, value: unknown, resolveUp?: boolean): void {
      tick();
      checkSize(value);
      super.set(name, value, resolveUp);
    }

    push(isolateWrites?: boolean): BudgetFrame {
      return new BudgetFrame(this, isolateWrites);
    }
  }

  const sandboxRuntime = {
    ...runtime,
    Frame: BudgetFrame,
    memberLookup,
    contextOrFrameLookup: (context: unknown, frame: unknown, name: string) => {
      tick();
      return BLOCKED.has(name) ? undefined : contextOrFrameLookup(context, frame, name);
    },
    callWrap: (fn: unknown, name: string, context: unknown, args: unknown[]) => {
      tick();
      args.forEach(checkSize);
      return callWrap(fn, name, context, args);
    },
    inOperator: (key: unknown, value: unknown) => {
      checkSize(key);
      checkSize(value);
      return inOperator(key, value);
    },
    // Everything a template prints passes here: the output budget counts it before it is joined.
    suppressValue: (value: unknown, autoescape: boolean) => {
      tick();
      checkSize(value);
      const text = suppressValue(value, autoescape);
      spend(text.length);
      return text;
    },
  };

  const env = new nj.Environment([], { autoescape: false, throwOnUndefined: false });
  guardFilters(env);
  env.addGlobal('range', (start: number, stop?: number, step = 1) => {
    const [from, to] = stop === undefined ? [0, start] : [start, stop];
    if (!Number.isFinite(from) || !Number.isFinite(to) || !Number.isFinite(step) || step === 0) return [];
    const count = Math.max(0, Math.ceil((to - from) / step));
    if (count > RANGE_LIMIT) throw new TemplateRenderError(`range() is limited to ${RANGE_LIMIT} items`);
    return Array.from({ length: count }, (_, i) => from + i * step);
  });

  return { env, sandboxRuntime, BudgetFrame };
}

let sandbox: ReturnType<typeof createSandbox> | undefined;
const loaded = () => (sandbox ??= createSandbox(nunjucks()));

export class TemplateRenderError extends Error {}

type RootRenderFunc = (env: unknown, context: unknown, frame: unknown, runtime: unknown, cb: unknown) => void;

// Compiling a template builds a JS function (about 0.2 ms); fetches render the same few texts
// again and again, so keep the compiled ones (FIFO, bounded).
const compiled = new Map<string, Nunjucks.Template>();
const MAX_COMPILED = 1000;

function compile(text: string): Nunjucks.Template {
  let template = compiled.get(text);
  if (template) return template;
  refuseRegexLiterals(text);
  const { env, sandboxRuntime, BudgetFrame } = loaded();
  template = new (nunjucks().Template)(text, env, undefined, true);
  const internal = template as unknown as { rootRenderFunc: RootRenderFunc };
  const root = internal.rootRenderFunc;
  // Every lookup in the compiled code goes through the runtime handed to the root function
  // (blocks and macros receive it from there), so swapping it here sandboxes the whole template.
  // The root frame nunjucks made is fresh and empty; ours is the same with the budget checks.
  internal.rootRenderFunc = (e, context, _frame, _runtime, cb) => {
    const frame = new BudgetFrame();
    frame.topLevel = true;
    root(e, context, frame, sandboxRuntime, cb);
  };
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
      const template = compile(text);
      // A null-prototype copy: the data object itself lends no inherited names.
      return withBudget(() => template.render(Object.assign(Object.create(null) as object, variables)));
    } catch (error) {
      throw new TemplateRenderError(message(error));
    }
  },
};
