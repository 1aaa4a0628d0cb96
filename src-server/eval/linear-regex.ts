import { createRequire } from 'node:module';
import type { RE2JS } from 're2js';
import { CellError } from './column-type';

/**
 * re2js is loaded at the first pattern, not at start: it is 150 KB of code that most sessions
 * never run (its CommonJS build, so the load stays synchronous; the server's bundle leaves it out).
 */
const load = createRequire(import.meta.url);
let engine: typeof RE2JS | undefined;
const re2 = (): typeof RE2JS => (engine ??= (load('re2js') as typeof import('re2js')).RE2JS);

/**
 * User patterns (REGEX, REGEX_EXTRACTION) run on RE2 (re2js, a pure-JS port): matching is linear
 * in the text, so no pattern can hold the event loop. With V8's backtracking engine `^(a+)+$` on
 * 34 `a`s and a `!` ran for minutes and froze the server (issue 10, item 5).
 *
 * Patterns are written in JavaScript syntax, as PromptLayer's docs show; the parts RE2 spells
 * differently are rewritten (`\uXXXX`, `\u{X}` → `\x{X}`). What RE2 cannot do in linear time —
 * backreferences, lookahead, lookbehind — is refused with a message that says so.
 */
/** A cell error when met at run time (a pattern stored before this engine); a 422 at column creation. */
export class UnsupportedPatternError extends CellError {}

const cache = new Map<string, RE2JS>();
const MAX_CACHED = 500;

export function compileLinear(pattern: string): RE2JS {
  let compiled = cache.get(pattern);
  if (compiled) return compiled;
  try {
    compiled = re2().compile(fromJavaScriptSyntax(pattern));
  } catch (error) {
    const reason = (error as Error).message.replace(/^error parsing regexp:\s*/, '');
    const hint = /\\[1-9]|\(\?[=!<]/.test(pattern) ? ' (backreferences and lookaround are not supported: patterns run on a linear-time engine, RE2)' : '';
    throw new UnsupportedPatternError(`Invalid regular expression: ${reason}${hint}`);
  }
  if (cache.size >= MAX_CACHED) cache.delete(cache.keys().next().value!);
  cache.set(pattern, compiled);
  return compiled;
}

/** `\uXXXX` and `\u{X…}` become RE2's `\x{X…}`; every other escape is passed through untouched. */
function fromJavaScriptSyntax(pattern: string): string {
  return pattern.replace(/\\(u\{([0-9a-fA-F]+)\}|u([0-9a-fA-F]{4})|.)/gs, (whole, _esc, braced?: string, four?: string) => {
    const hex = braced ?? four;
    return hex ? `\\x{${hex}}` : whole;
  });
}

/** True when the pattern matches anywhere in the text, like `RegExp.prototype.test`. */
export function testLinear(pattern: string, text: string): boolean {
  return compileLinear(pattern).test(text);
}

/** Every non-overlapping match, like `matchAll` with the `g` flag: the groups of each match. */
export function matchAllLinear(pattern: string, text: string): Array<Array<string | null>> {
  const re = compileLinear(pattern);
  const matcher = re.matcher(text);
  const groups = re.groupCount();
  const out: Array<Array<string | null>> = [];
  let from = 0;
  while (from <= text.length && matcher.find(from)) {
    out.push(Array.from({ length: groups + 1 }, (_, g) => matcher.group(g)));
    const start = matcher.start();
    const end = matcher.end();
    // An empty match moves on one character, as String.prototype.matchAll does.
    from = end === start ? end + 1 : end;
  }
  return out;
}
