import type { DecodedSpan } from '../otlp/otlp-spans';

/** What a GenAI span says about the LLM call it records, in our request's terms. */
export interface LlmCall {
  provider: string;
  model: string;
  messagesIn: ChatMessage[];
  messagesOut: ChatMessage[];
  inputTokens: number;
  outputTokens: number;
  /** Parts of input and output tokens priced at their own rate (cache reads and writes, reasoning), when reported. */
  cachedInputTokens: number;
  cacheWriteTokens: number;
  reasoningTokens: number;
  /** Every usage attribute as sent (tokens of kinds we have no column for, cache reads, reasoning…),
   * kept in the request's metadata under its own key so none is dropped. */
  usage: Record<string, string>;
  parameters: Record<string, unknown>;
  /** A price the client computed and sent; null leaves it to the price table (services/pricing.ts). */
  price: number | null;
}

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant' | 'tool' | 'developer';
  content: Array<{ type: 'text'; text: string }>;
  tool_calls?: Array<{ id: string; type: 'function'; function: { name: string; arguments: string } }>;
  tool_call_id?: string;
}

/** One file per attribute convention; each reads a span that `conventionOf` gave it. */
export interface GenAiMapper {
  /** Equals the file name. */
  id: string;
  /** One sentence: whose spans these are. */
  description: string;
  map(span: DecodedSpan): LlmCall;
}

const ROLES = new Set(['system', 'user', 'assistant', 'tool', 'developer']);

export function message(role: unknown, text: string, extra: Partial<ChatMessage> = {}): ChatMessage {
  const name = typeof role === 'string' && ROLES.has(role) ? (role as ChatMessage['role']) : role === 'model' ? 'assistant' : 'user';
  return { role: name, content: text === '' ? [] : [{ type: 'text', text }], ...extra };
}

export const str = (value: unknown): string | undefined =>
  typeof value === 'string' ? value : typeof value === 'number' || typeof value === 'boolean' ? String(value) : undefined;

export function int(value: unknown): number {
  const n = typeof value === 'number' ? value : typeof value === 'string' ? Number(value) : NaN;
  return Number.isFinite(n) && n >= 0 ? Math.round(n) : 0;
}

export function num(value: unknown): number | null {
  const n = typeof value === 'number' ? value : typeof value === 'string' && value.trim() !== '' ? Number(value) : NaN;
  return Number.isFinite(n) && n >= 0 ? n : null;
}

/** Text that may be a JSON document (messages are often sent as one JSON string attribute). */
export function parseJson(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  try {
    return JSON.parse(value);
  } catch {
    return value;
  }
}

/** Any content shape (string, list of parts, object) → its text. */
export function textOf(content: unknown): string {
  if (content === undefined || content === null) return '';
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map(textOf).filter(Boolean).join('\n');
  if (typeof content === 'object') {
    const part = content as Record<string, unknown>;
    for (const key of ['text', 'content', 'message_content']) if (typeof part[key] === 'string') return part[key];
    if ('content' in part) return textOf(part.content);
  }
  return JSON.stringify(content);
}

/** Attributes under `prefix` with their keys shortened, as strings (the request's metadata values). */
export function attributesUnder(attributes: Record<string, unknown>, prefix: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(attributes)) {
    if (key.startsWith(prefix)) out[key] = typeof value === 'string' ? value : JSON.stringify(value);
  }
  return out;
}

/** `prefix.0.role`, `prefix.0.content`, `prefix.1.role`… → [{role, content}, …] in index order. */
export function indexed(attributes: Record<string, unknown>, prefix: string): Array<Record<string, unknown>> {
  const rows = new Map<number, Record<string, unknown>>();
  for (const [key, value] of Object.entries(attributes)) {
    if (!key.startsWith(prefix)) continue;
    const match = /^(\d+)\.(.+)$/.exec(key.slice(prefix.length));
    if (!match) continue;
    const row = rows.get(Number(match[1])) ?? rows.set(Number(match[1]), {}).get(Number(match[1]))!;
    row[match[2]] = value;
  }
  return [...rows.entries()].sort(([a], [b]) => a - b).map(([, row]) => row);
}
