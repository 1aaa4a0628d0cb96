import { createServer, type Server } from 'node:http';
import { gzipSync } from 'node:zlib';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { CellError, type CellContext, type ColumnTypeId, type PromptSource } from '../src-server/eval/column-type';
import { columnTypes } from '../src-server/eval/columns/index';
import { createLlmGateway, type LlmCallLog } from '../src-server/eval/llm-gateway';
import { createSandbox } from '../src-server/eval/sandbox/sandbox';
import { createOutboundGate } from '../src-server/outbound/gate';
import { OPEN_EGRESS } from '../src-server/outbound/policy';
import type { ProviderConnection } from '../src-server/providers/provider';
import { createPricingService } from '../src-server/services/pricing';
import { openDatabase } from '../src-server/store/db';
import { createPriceStore } from '../src-server/store/prices';
import { createWriter } from '../src-server/store/writer';
import { startMockLlm, type MockLlm } from './support/mock-llm';

/**
 * One conformance suite every column type runs: a normal case, an edge case and an error case
 * each, plus a config the schema must refuse. A type without cases fails the suite.
 */
type Case =
  | { name: string; config: Record<string, unknown>; row: Record<string, unknown>; value: unknown }
  | { name: string; config: Record<string, unknown>; row: Record<string, unknown>; error: RegExp };

interface TypeCases {
  normal: Case[];
  edge: Case[];
  error: Case[];
  badConfig: Array<{ config: unknown; path: Array<string | number> }>;
}

let mock: MockLlm;
let endpoint: Server;
let endpointUrl: string;
const logged: LlmCallLog[] = [];

const templates: Record<string, { prompt_template: Record<string, unknown>; metadata: Record<string, unknown> }> = {};
const prompts: PromptSource = {
  resolve: (_ws, ref) => templates[ref.name] ?? null,
  render: (template, variables) => JSON.parse(JSON.stringify(template).replace(/\{(\w+)\}/g, (_, v: string) => JSON.stringify(String(variables[v] ?? '')).slice(1, -1))),
};

let ctx: (row: Record<string, unknown>) => CellContext;

beforeAll(async () => {
  mock = await startMockLlm({
    reply: (call) => {
      const text = JSON.stringify(call.body.messages ?? []);
      if (text.includes('Statement:')) return text.includes('banana') ? 'false' : text.includes('mumble') ? 'maybe' : 'true';
      if (text.includes('Extract:')) return '  Paris  ';
      return `echo: ${call.body.messages?.at(-1)?.content ?? ''}`;
    },
  });
  endpoint = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString() || '{}');
      if (req.url === '/text') return res.writeHead(200, { 'content-type': 'text/plain' }).end(`got ${Object.keys(body).join(',')}`);
      if (req.url === '/fail') return res.writeHead(500).end('kaput');
      if (req.url === '/slow') return setTimeout(() => res.end('late'), 500);
      // Compressed when the caller says it can read it, as most API servers do.
      if (req.url === '/gzip' && /gzip/.test(String(req.headers['accept-encoding']))) {
        return res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' }).end(gzipSync(JSON.stringify({ zipped: body })));
      }
      // Half an answer, then the connection drops.
      if (req.url === '/cut') {
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': '100' }).write('{"half":');
        return setTimeout(() => res.destroy(), 20);
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ echoed: body, auth: req.headers.authorization ?? null }));
    });
  });
  await new Promise<void>((r) => endpoint.listen(0, '127.0.0.1', r));
  endpointUrl = `http://127.0.0.1:${(endpoint.address() as AddressInfo).port}`;
  templates.greeter = {
    prompt_template: { type: 'chat', messages: [{ role: 'system', content: [{ type: 'text', text: 'Be brief.' }] }, { role: 'user', content: [{ type: 'text', text: 'Hi {who}' }] }] },
    metadata: { model: { provider: 'openai', name: 'gpt-4o-mini', parameters: { temperature: 0 } } },
  };
  templates.modelless = { prompt_template: { type: 'completion', content: [{ type: 'text', text: 'x' }] }, metadata: {} };
  const connections: Record<string, ProviderConnection> = {
    local: { name: 'local', client: 'openai', baseUrl: mock.baseUrl, apiKey: null },
    openai: { name: 'openai', client: 'openai', baseUrl: mock.baseUrl, apiKey: 'sk-test' },
    anthropic: { name: 'anthropic', client: 'anthropic', baseUrl: mock.rootUrl, apiKey: 'ak' },
  };
  const outbound = createOutboundGate({ egressOf: () => OPEN_EGRESS, recordHost: async () => {} });
  const db = openDatabase(':memory:');
  const pricing = createPricingService({ store: createPriceStore(db), writer: createWriter(db), now: Date.now });
  const llm = createLlmGateway({
    connect: (_ws, name) => connections[name] ?? null,
    outbound,
    concurrency: 4,
    logCall: async (_ws, call) => void logged.push(call),
    quote: pricing.quote,
    now: Date.now,
  });
  const sandbox = createSandbox({ timeoutMs: 300, memoryBytes: 16 * 1024 * 1024 });
  ctx = (row) => ({ row, workspaceId: 1, reportId: 7, columnName: 'col', llm, prompts, sandbox, fetch: outbound, signal: new AbortController().signal });
});

afterAll(async () => {
  await mock.close();
  await new Promise((r) => endpoint.close(r));
});

const cases: Record<ColumnTypeId, () => TypeCases> = {
  PROMPT_TEMPLATE: () => ({
    normal: [{ name: 'registry template with its model', config: { template: { name: 'greeter' }, prompt_template_variable_mappings: { who: 'name' } }, row: { name: 'Ada' }, value: 'echo: Hi Ada' }],
    edge: [
      { name: 'inline template on Anthropic via engine', config: { inline_template: { prompt_template: { type: 'completion', content: [{ type: 'text', text: 'Q: {q}' }] } }, prompt_template_variable_mappings: { q: 'q' }, engine: { provider: 'anthropic', model: 'claude-3-5-haiku' } }, row: { q: { a: 1 } }, value: 'echo: Q: {"a":1}' },
      { name: 'a configured provider by name', config: { inline_template: { prompt_template: { type: 'completion', content: [{ type: 'text', text: 'x' }] } }, engine: { provider: 'local', model: 'llama' } }, row: {}, value: 'echo: x' },
    ],
    error: [
      { name: 'unknown template', config: { template: { name: 'nope', label: 'prod' } }, row: {}, error: /'nope' has no label 'prod'/ },
      { name: 'template without a model', config: { template: { name: 'modelless' } }, row: {}, error: /names no model/ },
      { name: 'unknown provider', config: { template: { name: 'greeter' }, engine: { provider: 'mystery', model: 'm' } }, row: {}, error: /Unknown provider 'mystery'/ },
    ],
    badConfig: [
      { config: {}, path: ['template'] },
      { config: { inline_template: { prompt_template: { type: 'poem' } } }, path: ['inline_template', 'prompt_template', 'type'] },
      { config: { template: { name: 'greeter' }, prompt_template_variable_mappings: { who: '' } }, path: ['prompt_template_variable_mappings', 'who'] },
    ],
  }),
  LLM_ASSERTION: () => ({
    normal: [{ name: 'a statement that holds', config: { source: 'answer', prompt: 'Is it polite?' }, row: { answer: 'Thank you' }, value: true }],
    edge: [
      { name: 'a JSON list of prompts from a column', config: { source: 'answer', prompt_source: 'checks' }, row: { answer: 'a banana', checks: '["Is it fruit?","Is it food?"]' }, value: { 'Is it fruit?': false, 'Is it food?': false } },
      { name: 'variables filled into the prompt', config: { source: 'answer', prompt: 'Mentions {topic}?', variable_mappings: { topic: 't' } }, row: { answer: 'x', t: 'banana' }, value: false },
    ],
    error: [{ name: 'an answer that is not a verdict', config: { source: 'answer', prompt: 'mumble?' }, row: { answer: 'x' }, error: /not true or false/ }],
    badConfig: [{ config: { source: 'a' }, path: ['prompt'] }, { config: { source: 'a', prompt: 'x', prompt_source: 'b' }, path: ['prompt'] }],
  }),
  AI_DATA_EXTRACTION: () => ({
    normal: [{ name: 'extracts and trims', config: { source: 'text', query: 'the city' }, row: { text: 'I live in Paris' }, value: 'Paris' }],
    edge: [{ name: 'a null source is sent as empty text', config: { source: 'text', query: 'the city' }, row: { text: null }, value: 'Paris' }],
    error: [{ name: 'unknown provider', config: { source: 'text', query: 'q', engine: { provider: 'zzz', model: 'm' } }, row: { text: 'x' }, error: /Unknown provider/ }],
    badConfig: [{ config: { source: 'text' }, path: ['query'] }],
  }),
  CODE_EXECUTION: () => ({
    normal: [{ name: 'reads the row and returns JSON', config: { code: 'return { n: data.a * 2, s: data.b.toUpperCase() }' }, row: { a: 21, b: 'x' }, value: { n: 42, s: 'X' } }],
    edge: [
      { name: 'no return is null', config: { code: 'const x = 1;' }, row: {}, value: null },
      { name: 'fresh globals per cell', config: { code: 'globalThis.seen = (globalThis.seen || 0) + 1; return globalThis.seen' }, row: {}, value: 1 },
      { name: 'Python reads the row', config: { code: 'return {"n": data["a"] * 2, "s": data["b"].upper()}', language: 'PYTHON' }, row: { a: 21, b: 'x' }, value: { n: 42, s: 'X' } },
    ],
    error: [
      { name: 'no process', config: { code: 'return process.env' }, row: {}, error: /'process' is not defined/ },
      { name: 'no require', config: { code: 'return require("fs").readFileSync("/etc/passwd")' }, row: {}, error: /'require' is not defined/ },
      { name: 'no fetch', config: { code: 'return fetch("http://example.com")' }, row: {}, error: /fetch/ },
      { name: 'infinite loop', config: { code: 'while (true) {}' }, row: {}, error: /Time limit exceeded/ },
      { name: 'huge allocation', config: { code: 'const a = []; while (true) a.push(new Array(100000).fill(1));' }, row: {}, error: /Memory limit exceeded/ },
      { name: 'deep recursion', config: { code: 'function f() { return f() } return f()' }, row: {}, error: /Stack overflow|too much recursion|call stack/i },
      { name: 'a thrown error', config: { code: 'throw new TypeError("bad row")' }, row: {}, error: /TypeError: bad row/ },
      { name: 'a function is not JSON', config: { code: 'return () => 1' }, row: {}, error: /cannot be turned into JSON/ },
      { name: 'a Python exception', config: { code: 'raise ValueError("bad row")', language: 'PYTHON' }, row: {}, error: /^ValueError: bad row$/ },
    ],
    badConfig: [{ config: { code: '' }, path: ['code'] }, { config: { code: 'x', language: 'RUBY' }, path: ['language'] }, { config: { code: 'x', timeout_ms: 60_000 }, path: ['timeout_ms'] }],
  }),
  ENDPOINT: () => ({
    normal: [{ name: 'posts the row, JSON back', config: { url: '{endpoint}/json', headers: { authorization: 'Bearer t' } }, row: { a: 1 }, value: { echoed: { a: 1 }, auth: 'Bearer t' } }],
    edge: [
      { name: 'text back', config: { url: '{endpoint}/text' }, row: { a: 1, b: 2 }, value: 'got a,b' },
      { name: 'a gzipped answer is read decompressed', config: { url: '{endpoint}/gzip' }, row: { a: 1 }, value: { zipped: { a: 1 } } },
    ],
    error: [
      { name: 'a 500', config: { url: '{endpoint}/fail' }, row: {}, error: /answered 500: kaput/ },
      { name: 'the connection drops mid-answer', config: { url: '{endpoint}/cut' }, row: {}, error: /Could not reach the endpoint/ },
      { name: 'too slow', config: { url: '{endpoint}/slow', timeout_ms: 50 }, row: {}, error: /within 50 ms/ },
      { name: 'nothing listening', config: { url: 'http://127.0.0.1:1/' }, row: {}, error: /Could not reach/ },
    ],
    badConfig: [{ config: { url: 'ftp://x' }, path: ['url'] }, { config: { url: 'not a url' }, path: ['url'] }, { config: { url: 'http://x', timeout_ms: 0 }, path: ['timeout_ms'] }],
  }),
  HUMAN: () => ({
    normal: [{ name: 'waits for a person', config: { data_type: 'number' }, row: {}, error: /Awaiting human input/ }],
    edge: [{ name: 'with a UI hint', config: { data_type: 'boolean', ui_element: { kind: 'toggle' } }, row: {}, error: /Awaiting human input/ }],
    error: [{ name: 'string type also waits', config: { data_type: 'string' }, row: {}, error: /Awaiting/ }],
    badConfig: [{ config: { data_type: 'date' }, path: ['data_type'] }],
  }),
  COMPARE: () => ({
    normal: [{ name: 'equal strings', config: { sources: ['a', 'b'] }, row: { a: 'yes ', b: 'yes' }, value: true }],
    edge: [
      { name: 'JSON with keys in another order', config: { sources: ['a', 'b'], comparison_type: { type: 'JSON' } }, row: { a: '{"x":1,"y":[1,2]}', b: { y: [1, 2], x: 1 } }, value: true },
      { name: 'one source and a target, JSON path', config: { sources: ['a'], target: '{"r":{"v":3}}', comparison_type: { type: 'JSON', json_path: '$.r.v' } }, row: { a: '{"r":{"v":3,"w":0}}' }, value: true },
      { name: 'aliases source1/source2', config: { source1: 'a', source2: 'b' }, row: { a: 1, b: '1' }, value: true },
      { name: 'different strings', config: { sources: ['a', 'b'] }, row: { a: 'x', b: 'y' }, value: false },
    ],
    error: [{ name: 'invalid JSON', config: { sources: ['a', 'b'], comparison_type: { type: 'JSON' } }, row: { a: '{oops', b: '{}' }, error: /not valid JSON/ }],
    badConfig: [{ config: { sources: ['a'] }, path: ['sources'] }, { config: { sources: ['a', 'b'], comparison_type: { type: 'FUZZY' } }, path: ['comparison_type', 'type'] }],
  }),
  CONTAINS: () => ({
    normal: [{ name: 'case-insensitive', config: { source: 'a', value: 'PARIS' }, row: { a: 'in paris' }, value: true }],
    edge: [
      { name: 'value from a column', config: { source: 'a', value_source: 'b' }, row: { a: 'abc', b: 'B' }, value: true },
      { name: 'absent', config: { source: 'a', value: 'z' }, row: { a: 'abc' }, value: false },
      { name: 'null source', config: { source: 'a', value: 'z' }, row: { a: null }, value: false },
    ],
    error: [],
    badConfig: [{ config: { source: 'a' }, path: ['value'] }],
  }),
  REGEX: () => ({
    normal: [{ name: 'matches', config: { source: 'a', regex_pattern: '^\\d{3}-\\d{4}$' }, row: { a: '555-1234' }, value: true }],
    edge: [{ name: 'alias pattern, no match', config: { source: 'a', pattern: 'x+' }, row: { a: 'abc' }, value: false }],
    error: [],
    badConfig: [{ config: { source: 'a', regex_pattern: '(' }, path: ['regex_pattern'] }],
  }),
  REGEX_EXTRACTION: () => ({
    normal: [{ name: 'all matches', config: { source: 'a', regex_pattern: '\\d+' }, row: { a: 'a1 b22 c333' }, value: ['1', '22', '333'] }],
    edge: [
      { name: 'first group when there is one', config: { source: 'a', regex_pattern: 'id=(\\w+)' }, row: { a: 'id=x id=y' }, value: ['x', 'y'] },
      { name: 'none', config: { source: 'a', regex_pattern: 'z' }, row: { a: 'abc' }, value: [] },
    ],
    error: [],
    badConfig: [{ config: { source: 'a', regex_pattern: '[' }, path: ['regex_pattern'] }],
  }),
  JSON_PATH: () => ({
    normal: [{ name: 'first match', config: { source: 'a', json_path: '$.items[*].id' }, row: { a: '{"items":[{"id":1},{"id":2}]}' }, value: 1 }],
    edge: [
      { name: 'all matches, recursive', config: { source: 'a', json_path: '$..id', return_first_match: false }, row: { a: { x: { id: 1 }, y: [{ id: 2 }] } }, value: [1, 2] },
      { name: 'no match is null', config: { source: 'a', path: '$.nope' }, row: { a: '{}' }, value: null },
      { name: 'negative index and quoted key', config: { source: 'a', json_path: "$['a b'][-1]" }, row: { a: { 'a b': [1, 2, 3] } }, value: 3 },
    ],
    error: [{ name: 'not JSON', config: { source: 'a', json_path: '$.x' }, row: { a: 'plain' }, error: /not valid JSON/ }],
    badConfig: [{ config: { source: 'a', json_path: '$.[?(@.x)]' }, path: ['json_path'] }],
  }),
  XML_PATH: () => ({
    normal: [{ name: 'find text', config: { source: 'a', xml_path: './/name' }, row: { a: '<r><p><name>Ada</name></p><name>Bob</name></r>' }, value: 'Ada' }],
    edge: [
      { name: 'findall with an attribute predicate', config: { source: 'a', xml_path: "item[@k='v']", type: 'findall' }, row: { a: '<r><item k="v">1</item><item k="w">2</item><item k="v">3&amp;</item></r>' }, value: ['1', '3&'] },
      { name: 'element as XML', config: { source: 'a', path: 'b', return_text: false }, row: { a: '<a><b x="1">t<![CDATA[<c>]]></b></a>' }, value: '<b x="1">t&lt;c></b>' },
      { name: 'no match', config: { source: 'a', xml_path: 'zzz' }, row: { a: '<a/>' }, value: null },
    ],
    error: [{ name: 'malformed XML', config: { source: 'a', xml_path: 'b' }, row: { a: '<a><b></a>' }, error: /Invalid XML/ }],
    badConfig: [{ config: { source: 'a', xml_path: 'b', type: 'some' }, path: ['type'] }],
  }),
  PARSE_VALUE: () => ({
    normal: [{ name: 'number', config: { source: 'a', type: 'number' }, row: { a: ' 4.5 ' }, value: 4.5 }],
    edge: [
      { name: 'boolean words', config: { source: 'a', type: 'boolean' }, row: { a: 'Yes' }, value: true },
      { name: 'object', config: { source: 'a', type: 'object' }, row: { a: '{"k":[1]}' }, value: { k: [1] } },
      { name: 'string of JSON', config: { source: 'a', type: 'string' }, row: { a: { k: 1 } }, value: '{"k":1}' },
    ],
    error: [
      { name: 'not a number', config: { source: 'a', type: 'number' }, row: { a: 'four' }, error: /not a number/ },
      { name: 'not a boolean', config: { source: 'a', type: 'boolean' }, row: { a: 'perhaps' }, error: /not a boolean/ },
    ],
    badConfig: [{ config: { source: 'a', type: 'date' }, path: ['type'] }],
  }),
  ASSERT_VALID: () => ({
    normal: [{ name: 'valid JSON object', config: { source: 'a', type: 'object' }, row: { a: '{"x":1}' }, value: true }],
    edge: [
      { name: 'SQL on unknown tables parses', config: { source: 'a', type: 'sql' }, row: { a: 'SELECT name FROM users WHERE id = 1' }, value: true },
      { name: 'broken SQL', config: { source: 'a', type: 'sql' }, row: { a: 'SELEC name FRM users' }, value: false },
      { name: 'not a number', config: { source: 'a', type: 'number' }, row: { a: '12abc' }, value: false },
      { name: 'a JSON string is not an object', config: { source: 'a', type: 'object' }, row: { a: '"text"' }, value: false },
    ],
    error: [],
    badConfig: [{ config: { source: 'a', type: 'yaml' }, path: ['type'] }],
  }),
  VARIABLE: () => ({
    normal: [{ name: 'string', config: { value: { type: 'string', value: 'hi' } }, row: {}, value: 'hi' }],
    edge: [
      { name: 'JSON text', config: { value: { type: 'json', value: '{"a":[1]}' } }, row: {}, value: { a: [1] } },
      { name: 'JSON value', config: { value: { type: 'json', value: [1, 2] } }, row: {}, value: [1, 2] },
    ],
    error: [],
    badConfig: [{ config: { value: { type: 'json', value: '{bad' } }, path: ['value', 'value'] }, { config: { value: { type: 'xml', value: '' } }, path: ['value', 'type'] }],
  }),
  COALESCE: () => ({
    normal: [{ name: 'first with a value', config: { sources: ['a', 'b', 'c'] }, row: { a: null, b: '', c: 'x' }, value: 'x' }],
    edge: [{ name: 'all empty', config: { sources: ['a'] }, row: { a: null }, value: null }, { name: 'false counts as a value', config: { sources: ['a', 'b'] }, row: { a: false, b: 1 }, value: false }],
    error: [],
    badConfig: [{ config: { sources: [] }, path: ['sources'] }],
  }),
  COMBINE_COLUMNS: () => ({
    normal: [{ name: 'object by name', config: { sources: ['a', 'b'] }, row: { a: 1, b: 'x', c: 3 }, value: { a: 1, b: 'x' } }],
    edge: [{ name: 'missing column is null', config: { sources: ['z'] }, row: {}, value: { z: null } }],
    error: [],
    badConfig: [{ config: { sources: 'a' }, path: ['sources'] }],
  }),
  COUNT: () => ({
    normal: [{ name: 'words', config: { source: 'a', type: 'words' }, row: { a: ' one two  three ' }, value: 3 }],
    edge: [
      { name: 'chars count code points', config: { source: 'a', type: 'chars' }, row: { a: 'añ😀' }, value: 3 },
      { name: 'sentences', config: { source: 'a', type: 'sentences' }, row: { a: 'Hi. How are you? Fine!' }, value: 3 },
      { name: 'paragraphs', config: { source: 'a', type: 'paragraphs' }, row: { a: 'a\n\nb\n \nc' }, value: 3 },
      { name: 'empty', config: { source: 'a', type: 'words' }, row: { a: null }, value: 0 },
    ],
    error: [],
    badConfig: [{ config: { source: 'a', type: 'bytes' }, path: ['type'] }],
  }),
  MATH_OPERATOR: () => ({
    normal: [{ name: 'column > value', config: { sources: ['a'], value: 3, operator: 'gt' }, row: { a: '4' }, value: true }],
    edge: [
      { name: 'two columns, le at equality', config: { sources: ['a', 'b'], operator: 'le' }, row: { a: 2, b: 2 }, value: true },
      { name: 'lt false', config: { sources: ['a'], value: '1', operator: 'lt' }, row: { a: 1 }, value: false },
    ],
    error: [{ name: 'not a number', config: { sources: ['a'], value: 1, operator: 'ge' }, row: { a: 'n/a' }, error: /not a number/ }],
    badConfig: [{ config: { sources: ['a'], operator: 'gt' }, path: ['sources'] }, { config: { sources: ['a'], value: 1, operator: 'eq' }, path: ['operator'] }],
  }),
  ABSOLUTE_NUMERIC_DISTANCE: () => ({
    normal: [{ name: 'distance', config: { sources: ['a', 'b'] }, row: { a: 3, b: '10.5' }, value: 7.5 }],
    edge: [{ name: 'same', config: { source1: 'a', source2: 'b' }, row: { a: -1, b: -1 }, value: 0 }],
    error: [{ name: 'text', config: { sources: ['a', 'b'] }, row: { a: 'x', b: 1 }, error: /not a number/ }],
    badConfig: [{ config: { sources: ['a'] }, path: ['sources'] }],
  }),
  COSINE_SIMILARITY: () => ({
    normal: [{ name: 'same text is 1', config: { sources: ['a', 'b'] }, row: { a: 'red apple', b: 'red apple' }, value: 1 }],
    edge: [{ name: 'unrelated texts are lower', config: { sources: ['a', 'b'], engine: { provider: 'local', model: 'nomic' } }, row: { a: 'red apple', b: 'blue ocean waves' }, value: 0 }],
    error: [
      { name: 'empty text', config: { sources: ['a', 'b'] }, row: { a: '', b: 'x' }, error: /empty text/ },
      { name: 'Anthropic has no embeddings', config: { sources: ['a', 'b'], engine: { provider: 'anthropic', model: 'x' } }, row: { a: 'x', b: 'y' }, error: /no embeddings endpoint/ },
    ],
    badConfig: [{ config: { sources: ['a', 'b', 'c'] }, path: ['sources'] }],
  }),
  MIN_MAX: () => ({
    normal: [{ name: 'max of a list', config: { source: 'a', type: 'max' }, row: { a: '[3, 9, "4"]' }, value: 9 }],
    edge: [{ name: 'min through a JSON path', config: { source: 'a', type: 'min', json_path: '$.scores[*].v' }, row: { a: { scores: [{ v: 5 }, { v: -2 }] } }, value: -2 }],
    error: [{ name: 'empty list', config: { source: 'a', type: 'min' }, row: { a: '[]' }, error: /no numbers/ }, { name: 'a word', config: { source: 'a', type: 'max' }, row: { a: '[1,"x"]' }, error: /not a number/ }],
    badConfig: [{ config: { source: 'a', type: 'avg' }, path: ['type'] }],
  }),
};

test('every registered column type has a conformance case set, and nothing else does', () => {
  expect(Object.keys(cases).sort()).toEqual(Object.keys(columnTypes).sort());
});

describe.each(Object.keys(columnTypes) as ColumnTypeId[])('%s', (id) => {
  const type = columnTypes[id];
  const set = cases[id]();

  test('declares its id, one sentence and a config schema that refuses a non-object', () => {
    expect(type.id).toBe(id);
    expect(type.description).toMatch(/^[A-Z].*\.$/);
    expect(type.description.split(/\.\s/).length).toBe(1);
    expect(type.config.safeParse('not an object').success).toBe(false);
  });

  test.each(set.badConfig)('refuses config %j at the right key', ({ config, path }) => {
    const result = type.config.safeParse(config);
    expect(result.success).toBe(false);
    expect(result.error!.issues.map((i) => i.path.join('.'))).toContain(path.join('.'));
  });

  const runnable = [...set.normal.map((c) => ['normal', c] as const), ...set.edge.map((c) => ['edge', c] as const), ...set.error.map((c) => ['error', c] as const)];
  test.each(runnable)('%s: %o', async (_kind, c) => {
    const parsed = type.config.safeParse(JSON.parse(JSON.stringify(c.config).replaceAll('{endpoint}', endpointUrl)));
    expect(parsed.success, JSON.stringify(parsed.error?.issues)).toBe(true);
    for (const name of type.reads(parsed.data)) expect(typeof name).toBe('string');
    if ('error' in c) {
      const failure = await Promise.resolve()
        .then(() => type.run(parsed.data, ctx(c.row)))
        .then(
          (r) => new Error(`expected an error, got ${JSON.stringify(r)}`),
          (e: unknown) => e,
        );
      expect(failure).toBeInstanceOf(CellError);
      expect((failure as Error).message).toMatch(c.error);
      return;
    }
    const result = await type.run(parsed.data, ctx(c.row));
    if (id === 'COSINE_SIMILARITY' && c.name.startsWith('unrelated')) {
      expect(result.value).toBeGreaterThanOrEqual(0);
      expect(result.value).toBeLessThan(0.5);
    } else expect(result.value).toEqual(c.value);
  });
});

test('LLM calls are logged with the report tag, tokens and cost', async () => {
  const type = columnTypes.PROMPT_TEMPLATE;
  const config = type.config.parse({ template: { name: 'greeter' }, prompt_template_variable_mappings: { who: 'name' } });
  const anthropic = type.config.parse({
    inline_template: { prompt_template: { type: 'completion', content: [{ type: 'text', text: 'Logged {q}' }] } },
    prompt_template_variable_mappings: { q: 'q' },
    engine: { provider: 'anthropic', model: 'claude-3-5-haiku' },
  });
  const callsBefore = mock.calls.length;
  const cell = ctx({ name: 'Grace', q: 'anthropic' });
  await type.run(config, cell);
  await type.run(anthropic, cell);
  await cell.llm.settled();

  const call = logged.find((l) => l.model === 'gpt-4o-mini' && l.output?.startsWith('echo: Hi Grace'));
  expect(call).toBeDefined();
  expect(call!.tags).toEqual(['report:7']);
  expect(call!.metadata).toEqual({ report_id: '7', column: 'col' });
  expect(call!.inputTokens).toBeGreaterThan(0);
  // The mock reports no cached, cache-write or reasoning tokens: none is stored with the price.
  expect(call!.priced).toEqual({
    price: expect.any(Number) as number, price_source: 'table', cached_input_tokens: null, cache_write_tokens: null, cache_write_1h_tokens: null, reasoning_tokens: null,
  });
  expect(call!.priced.price).toBeGreaterThan(0);
  expect(call!.parameters).toEqual({ temperature: 0 });
  const anthropicCall = mock.calls.slice(callsBefore).find((c) => c.path === '/v1/messages');
  expect(anthropicCall?.headers['x-api-key']).toBe('ak');
});

test('a sandboxed runaway leaves the host usable', async () => {
  const sandbox = createSandbox({ timeoutMs: 200, memoryBytes: 8 * 1024 * 1024 });
  for (let i = 0; i < 3; i++) {
    await expect(sandbox.runJavaScript('const a = []; while (true) a.push("x".repeat(1e5) + Math.random())', {})).rejects.toThrow(/limit exceeded/);
  }
  await expect(sandbox.runJavaScript('return data.x + 1', { x: 1 })).resolves.toBe(2);
});
