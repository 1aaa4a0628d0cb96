// A hand-written check of `POST /log-request`'s common valid shape, ahead of zod. zod's
// `LogRequestBody.safeParse` cost ~40 µs of the HTTP thread per request in the server
// (docs/performance.md, "Ingest: HTTP thread"), a fifth of that thread's work. This function
// returns exactly what that parse returns (same keys in the same order, same defaults and
// transforms, new objects and arrays where zod makes them), or `undefined` when it is not sure;
// zod then runs as before and writes the 422. It is stricter than the schema, never looser:
// anything unusual (a `__proto__` key, an unsafe integer, a wrong type) is left to zod.
// test/fast-log-request-body.test.ts runs both on thousands of valid and mutated bodies.
//
// It reads JSON.parse's output (plain objects and arrays, no `undefined` values). Keep it in step
// with LogRequestBody, LoggedTemplate and ChatMessage (schemas/logging.ts, common.ts): a field
// added there and not here is stripped here, which that test catches.
import { isObject, type Json } from '../is-object';
import { timestampMs } from './common';
import { spanLinkId, type LogRequestBody } from './logging';

const STATUSES = new Set(['SUCCESS', 'WARNING', 'ERROR']);
const ROLES = new Set(['system', 'user', 'assistant', 'tool', 'function', 'developer', 'placeholder']);
const TEMPLATE_FORMATS = new Set(['f-string', 'jinja2']);
const CHAT_KEYS = new Set(['type', 'messages', 'tools', 'functions', 'input_variables']);
const COMPLETION_KEYS = new Set(['type', 'content', 'template_format', 'input_variables']);
const MESSAGE_KEYS = new Set(['role', 'content', 'name', 'tool_calls', 'tool_call_id', 'input_variables', 'template_format']);

/** Marks "not sure": zod decides. */
class Unsure extends Error {}
const UNSURE = new Unsure();

/** The body as `LogRequestBody.safeParse(raw).data`, or undefined when zod must decide. */
export function fastLogRequestBody(raw: unknown): LogRequestBody | undefined {
  try {
    return build(raw);
  } catch (error) {
    if (error === UNSURE) return undefined;
    throw error;
  }
}

function build(raw: unknown): LogRequestBody {
  if (!isObject(raw)) throw UNSURE;
  const b = raw;
  // Keys in LogRequestBody's order: zod writes its output in the shape's order.
  const out: Json = {
    provider: nonEmptyString(b.provider),
    model: nonEmptyString(b.model),
    input: loggedTemplate(b.input),
    output: loggedTemplate(b.output),
    request_start_time: timestamp(b.request_start_time),
    request_end_time: timestamp(b.request_end_time),
    parameters: b.parameters == null ? {} : record(b.parameters),
    tags: b.tags == null ? [] : strings(b.tags, 512),
    metadata: b.metadata == null ? {} : metadata(b.metadata),
  };
  if (b.prompt_name !== undefined) out.prompt_name = b.prompt_name === null ? null : string(b.prompt_name);
  if (b.prompt_id !== undefined) out.prompt_id = b.prompt_id === null ? null : integer(b.prompt_id, 1);
  if (b.prompt_version_number !== undefined) out.prompt_version_number = b.prompt_version_number === null ? null : integer(b.prompt_version_number, 1);
  out.prompt_input_variables = b.prompt_input_variables == null ? {} : record(b.prompt_input_variables);
  out.input_tokens = b.input_tokens === undefined ? 0 : integer(b.input_tokens, 0);
  out.output_tokens = b.output_tokens === undefined ? 0 : integer(b.output_tokens, 0);
  if (b.price !== undefined) out.price = price(b.price);
  out.function_name = b.function_name === undefined ? '' : string(b.function_name);
  if (b.score !== undefined) out.score = b.score === null ? null : integer(b.score, 0, 100);
  if (b.score_name !== undefined) out.score_name = b.score_name === null ? null : string(b.score_name, 255, 1);
  out.status = b.status === undefined ? 'SUCCESS' : member(b.status, STATUSES);
  if (b.error_type !== undefined) out.error_type = b.error_type === null ? null : string(b.error_type, 255);
  if (b.error_message !== undefined) out.error_message = b.error_message === null ? null : string(b.error_message, 1024);
  if (b.api_type !== undefined) out.api_type = b.api_type === null ? null : string(b.api_type);
  if (b.group_id !== undefined) out.group_id = b.group_id === null ? null : integer(b.group_id, 1);
  out.span_id = spanLink(b.span_id);
  if (b.api_key !== undefined) out.api_key = string(b.api_key);
  return out as LogRequestBody;
}

function string(v: unknown, max = Infinity, min = 0): string {
  if (typeof v !== 'string' || v.length > max || v.length < min) throw UNSURE;
  return v;
}

const nonEmptyString = (v: unknown) => string(v, Infinity, 1);

/** zod's `.int()` takes safe integers only. */
function integer(v: unknown, min: number, max = Number.MAX_SAFE_INTEGER): number {
  if (!Number.isSafeInteger(v) || (v as number) < min || (v as number) > max) throw UNSURE;
  return v as number;
}

function price(v: unknown): number {
  if (typeof v !== 'number' || !Number.isFinite(v) || v < 0) throw UNSURE;
  return v;
}

function member(v: unknown, values: Set<string>): string {
  if (typeof v !== 'string' || !values.has(v)) throw UNSURE;
  return v;
}

function timestamp(v: unknown): number {
  if (typeof v !== 'number' && typeof v !== 'string') throw UNSURE;
  const ms = timestampMs(v);
  if (typeof ms !== 'number') throw UNSURE;
  return ms;
}

function spanLink(v: unknown): string | null {
  if (v == null) return null;
  if (typeof v === 'string') return spanLinkId(string(v, 64));
  return spanLinkId(integer(v, 0));
}

/** An array of strings of at most `max` characters, copied (zod's arrays are new arrays). */
function strings(v: unknown, max = Infinity): string[] {
  if (!Array.isArray(v)) throw UNSURE;
  const out: string[] = [];
  for (const item of v) out.push(string(item, max));
  return out;
}

/** An array of anything, copied. */
function array(v: unknown): unknown[] {
  if (!Array.isArray(v)) throw UNSURE;
  return v.slice();
}

/** `z.record(z.string(), z.unknown())`: a new object, same keys and values. */
function record(v: unknown): Json {
  if (!isObject(v)) throw UNSURE;
  return rest(v, NO_KEYS, {});
}

/** Metadata: string keys of at most 1,024 characters, string values. */
function metadata(v: unknown): Json {
  if (!isObject(v)) throw UNSURE;
  const out: Json = {};
  for (const key in v) {
    const value = v[key];
    if (key === '__proto__' || key.length > 1024 || typeof value !== 'string') throw UNSURE;
    out[key] = value;
  }
  return out;
}

/** A loose object's unknown keys, after its own, in for-in order as zod's catchall copies them. */
function rest(from: Json, known: Set<string>, out: Json): Json {
  for (const key in from) {
    if (known.has(key)) continue;
    if (key === '__proto__') throw UNSURE;
    out[key] = from[key];
  }
  return out;
}

function loggedTemplate(v: unknown): Json {
  if (!isObject(v)) throw UNSURE;
  if (v.type === 'chat') {
    const messages = v.messages;
    if (!Array.isArray(messages)) throw UNSURE;
    const out: Json = { type: 'chat', messages: messages.map(chatMessage) };
    if (v.tools !== undefined) out.tools = v.tools === null ? null : array(v.tools);
    if (v.functions !== undefined) out.functions = v.functions === null ? null : array(v.functions);
    if (v.input_variables !== undefined) out.input_variables = strings(v.input_variables);
    return rest(v, CHAT_KEYS, out);
  }
  if (v.type === 'completion') {
    const out: Json = { type: 'completion', content: content(v.content) };
    if (v.template_format !== undefined) out.template_format = member(v.template_format, TEMPLATE_FORMATS);
    if (v.input_variables !== undefined) out.input_variables = strings(v.input_variables);
    return rest(v, COMPLETION_KEYS, out);
  }
  throw UNSURE;
}

function chatMessage(v: unknown): Json {
  if (!isObject(v)) throw UNSURE;
  const out: Json = { role: member(v.role, ROLES) };
  if (v.content !== undefined) out.content = content(v.content);
  if (v.name !== undefined) out.name = v.name === null ? null : string(v.name);
  if (v.tool_calls !== undefined) out.tool_calls = v.tool_calls === null ? null : array(v.tool_calls);
  if (v.tool_call_id !== undefined) out.tool_call_id = v.tool_call_id === null ? null : string(v.tool_call_id);
  if (v.input_variables !== undefined) out.input_variables = strings(v.input_variables);
  if (v.template_format !== undefined) out.template_format = member(v.template_format, TEMPLATE_FORMATS);
  return rest(v, MESSAGE_KEYS, out);
}

/** A string, or an array of loose `{ type: string }` blocks, copied. */
function content(v: unknown): unknown {
  if (typeof v === 'string') return v;
  if (!Array.isArray(v)) throw UNSURE;
  const out: Json[] = [];
  for (const block of v) {
    if (!isObject(block) || typeof block.type !== 'string') throw UNSURE;
    out.push(rest(block, TYPE_KEY, { type: block.type }));
  }
  return out;
}

const TYPE_KEY = new Set(['type']);
const NO_KEYS = new Set<string>();
