// The hand-written fast path of POST /log-request's body (schemas/fast-log-request-body.ts) must
// give exactly zod's output for every body it takes, and take the bodies clients really send.
// Both run on the bench's and the seed corpus's bodies, bodies like the SDKs', and every field of
// those mutated (wrong types, missing, null, extra keys, huge numbers, NaN-ish strings).
import { isDeepStrictEqual } from 'node:util';
import { describe, expect, it } from 'vitest';
import { ingestBody, logRecord } from '../bench/support/corpus';
import { fastLogRequestBody } from '../src-server/schemas/fast-log-request-body';
import { LogRequestBody } from '../src-server/schemas/logging';
import { logBody } from './support/factories';

/** The seed corpus's record as a POST /log-request body. */
function corpusBody(i: number) {
  const r = logRecord(i, Date.UTC(2026, 9, 1) + i * 1000);
  return {
    provider: r.provider, model: r.model, input: r.input, output: r.output,
    request_start_time: r.start / 1000, request_end_time: new Date(r.end).toISOString(),
    parameters: r.parameters, tags: r.tags, metadata: r.metadata,
    input_tokens: r.inputTokens, output_tokens: r.outputTokens, price: r.price, score: r.score, status: r.status,
    function_name: 'openai.chat.completions.create', api_type: 'chat-completions',
  };
}

/** Bodies as the SDKs and PromptLayer's docs write them, using every field the schema has. */
const sdkBodies: unknown[] = [
  {
    provider: 'openai', model: 'gpt-4o',
    input: { type: 'chat', input_variables: [], messages: [{ role: 'user', input_variables: [], template_format: 'f-string', content: [{ type: 'text', text: 'Hello' }] }] },
    output: { type: 'chat', input_variables: [], messages: [{ role: 'assistant', input_variables: [], template_format: 'f-string', content: [{ type: 'text', text: 'Hi.' }] }] },
    request_start_time: 1_762_000_000.25, request_end_time: 1_762_000_001, tags: ['sdk-test'], metadata: { source: 'vitest' },
    input_tokens: 5, output_tokens: 3,
  },
  {
    provider: 'anthropic', model: 'claude-sonnet-4',
    input: { type: 'completion', content: 'Say {what}', template_format: 'jinja2', input_variables: ['what'], extra: { kept: true } },
    output: { type: 'completion', content: [{ type: 'text', text: 'Said.', annotations: [] }] },
    request_start_time: '2026-11-01T10:00:00Z', request_end_time: '2026-11-01T10:00:00.5+02:00',
    parameters: null, tags: null, metadata: null, prompt_name: 'greeter', prompt_id: 7, prompt_version_number: 2,
    prompt_input_variables: { what: 'hi', n: 3, nested: { a: [1, 2] } }, price: 0, function_name: 'anthropic.messages.create',
    score: 100, score_name: 'quality', status: 'WARNING', error_type: null, error_message: null, api_type: null, group_id: 12,
    span_id: '00F067AA0BA902B7', api_key: 'pl_somekey', unknown_top_level: 'dropped',
  },
  {
    provider: 'openai', model: 'gpt-4.1',
    input: {
      messages: [
        { content: 'You are terse.', role: 'system', name: null },
        { role: 'user', content: [{ type: 'image_url', image_url: { url: 'data:x' } }, { text: 'what is it', type: 'text' }], name: 'ann' },
        { role: 'assistant', tool_calls: [{ id: 'c1', type: 'function', function: { name: 'f', arguments: '{}' } }] },
        { role: 'tool', tool_call_id: 'c1', content: '{"ok":true}' },
        { role: 'placeholder', content: [], input_variables: ['history'], '1': 'numeric key', z: 0 },
      ],
      type: 'chat', tools: [{ type: 'function', function: { name: 'f' } }], functions: null, tool_choice: 'auto',
    },
    output: { type: 'chat', messages: [{ role: 'assistant', content: [] }] },
    request_start_time: 0, request_end_time: 1, span_id: 1234567890123, group_id: null, score: null, score_name: null,
    prompt_name: null, prompt_id: null, prompt_version_number: null, error_type: 'timeout', error_message: 'took too long', status: 'ERROR',
  },
  { provider: 'x', model: 'y', input: { type: 'completion', content: '' }, output: { type: 'completion', content: [] }, request_start_time: '2026-01-01', request_end_time: '2026-01-02', span_id: '0000000000000000' },
  { provider: 'x', model: 'y', input: { type: 'completion', content: '' }, output: { type: 'completion', content: '' }, request_start_time: 1, request_end_time: 2, span_id: 0, price: 1e-9 },
  { provider: 'x', model: 'y', input: { type: 'completion', content: '' }, output: { type: 'completion', content: '' }, request_start_time: 1, request_end_time: 2, span_id: '' },
  { provider: 'x', model: 'y', input: { type: 'completion', content: '' }, output: { type: 'completion', content: '' }, request_start_time: 1, request_end_time: 2, span_id: ' 42 ' },
];

const validBodies: unknown[] = [
  ...Array.from({ length: 60 }, (_, i) => JSON.parse(ingestBody(i * 37))),
  ...Array.from({ length: 60 }, (_, i) => corpusBody(i * 101)),
  logBody(), logBody({ parameters: { temperature: 0 }, tags: [], metadata: {} }),
  ...sdkBodies,
].map((b) => JSON.parse(JSON.stringify(b)));

const odd: unknown[] = [
  undefined, null, '', 'x', 'NaN', 'Infinity', '1e400', ' 12 ', '2026-13-45', 'x'.repeat(2000), 0, -0, -1, 1.5, 101, 2 ** 53, 1e21, 1e400,
  -1e400, true, false, [], ['a'], [1], [null], [{}], {}, { type: 'text' }, { type: 1 }, { a: 1 }, 'SUCCESS', 'chat', 'completion', 'user',
];

type Path = Array<string | number>;

/** Keys no valid body has, added where their parent exists: unknown keys, and a metadata key past 1,024 characters. */
const addedKeys: Path[] = [
  ['added_key'], ['input', 'added_key'], ['input', 'messages', 0, 'added_key'], ['output', 'messages', 0, 'content', 0, 'added_key'],
  ['metadata', 'k'.repeat(1025)], ['metadata', 'k'.repeat(1024)], ['parameters', '0'], ['prompt_input_variables', 'name'],
];

/** Every path to a value inside `value`, the root excluded. */
function paths(value: unknown, prefix: Path = []): Path[] {
  if (typeof value !== 'object' || value === null) return [];
  const keys = Array.isArray(value) ? value.map((_, i) => i) : Object.keys(value);
  return keys.flatMap((k) => [[...prefix, k], ...paths((value as Record<string | number, unknown>)[k], [...prefix, k])]);
}

/** `body` with the value at `path` replaced (`undefined`: removed); undefined when `path` is not in `body`. */
function mutate(body: unknown, path: Path, to: unknown): unknown {
  const copy = structuredClone(body);
  let at = copy as Record<string | number, unknown>;
  for (const k of path.slice(0, -1)) {
    at = at[k] as Record<string | number, unknown>;
    if (typeof at !== 'object' || at === null) return undefined;
  }
  const last = path[path.length - 1];
  if (to === undefined && !Array.isArray(at)) delete at[last];
  else at[last] = to;
  return copy;
}

/** Every object and array inside `value`, itself included. */
function containers(value: unknown, into = new Set<unknown>()): Set<unknown> {
  if (typeof value === 'object' && value !== null) {
    into.add(value);
    for (const v of Object.values(value)) containers(v, into);
  }
  return into;
}

/** Walks zod's and the fast path's outputs side by side: where zod made a new object or array, so did the fast path. */
function sameSharing(zodOut: unknown, fastOut: unknown, zodInput: Set<unknown>, fastInput: Set<unknown>): boolean {
  if (typeof zodOut !== 'object' || zodOut === null) return true;
  if (zodInput.has(zodOut) !== fastInput.has(fastOut)) return false;
  return Object.keys(zodOut).every((k) =>
    sameSharing((zodOut as Record<string, unknown>)[k], (fastOut as Record<string, unknown>)[k], zodInput, fastInput));
}

/** Runs both on separate parses of `text`; the fast path's answer, when it gives one, must be zod's. */
function compare(text: string): { fast: boolean; zod: boolean; same: boolean } {
  const forZod = JSON.parse(text) as unknown;
  const forFast = JSON.parse(text) as unknown;
  const zod = LogRequestBody.safeParse(forZod);
  const fast = fastLogRequestBody(forFast);
  if (fast === undefined) return { fast: false, zod: zod.success, same: true };
  const same = zod.success
    && isDeepStrictEqual(fast, zod.data)
    && JSON.stringify(fast) === JSON.stringify(zod.data) // key order, which the stored input and the reply show
    && sameSharing(zod.data, fast, containers(forZod), containers(forFast));
  return { fast: true, zod: zod.success, same };
}

describe('the fast path of POST /log-request bodies', () => {
  it('takes every valid corpus and SDK body and gives zod\'s output for each', () => {
    for (const body of validBodies) {
      const text = JSON.stringify(body);
      expect({ text, ...compare(text) }).toEqual({ text, fast: true, zod: true, same: true });
    }
  });

  it('gives zod\'s output for every mutated body it takes, and leaves the rest to zod', () => {
    let taken = 0;
    let rejectedByZod = 0;
    const mismatches: string[] = [];
    for (const body of validBodies.slice(0, 3).concat(validBodies.slice(60, 63), validBodies.slice(120))) {
      for (const path of [...paths(body), ...addedKeys]) {
        for (const to of odd) {
          const mutated = mutate(body, path, to);
          if (mutated === undefined) continue;
          const text = JSON.stringify(mutated);
          const result = compare(text);
          if (!result.same) mismatches.push(text);
          if (result.fast) taken++;
          if (!result.zod) rejectedByZod++;
        }
      }
    }
    expect(mismatches.slice(0, 3)).toEqual([]);
    // The mutations are varied enough to exercise both sides: many still valid, many not.
    expect(taken).toBeGreaterThan(1000);
    expect(rejectedByZod).toBeGreaterThan(1000);
  });

  it('leaves to zod what JSON.parse makes awkward: __proto__ keys, numbers past 2^53, numbers JSON rounds to Infinity', () => {
    const base = JSON.stringify(validBodies[0]).slice(0, -1);
    for (const extra of [
      '"parameters":{"__proto__":{"x":1}}', '"metadata":{"__proto__":"x"}',
      '"input":{"type":"chat","messages":[],"__proto__":{}}', '"prompt_id":9007199254740993', '"price":1e400', '"request_end_time":1e400',
      '"span_id":18446744073709551615',
    ]) {
      const text = `${base},${extra}}`;
      const result = compare(text);
      expect({ text, ...result }).toEqual({ text, fast: false, zod: result.zod, same: true });
    }
  });
});
