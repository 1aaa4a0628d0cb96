import { z } from 'zod';

/**
 * Times the store can key: the full-text index keys a request by `start_ms * 2^20 + sequence` in a
 * 64-bit integer, which overflows after the year 2248 (1e10 epoch seconds answered 500). 1970 to
 * 2200 holds every real request with room to spare.
 */
export const MIN_TIMESTAMP_MS = 0;
export const MAX_TIMESTAMP_MS = Date.UTC(2200, 0, 1) - 1;

/**
 * ISO 8601 string or epoch seconds -> epoch milliseconds, or the reason it is not a time the store
 * can key. Timestamp's transform, shared with the hand-written fast path (fast-log-request-body.ts).
 */
export function timestampMs(value: number | string): number | { message: string } {
  const ms = typeof value === 'number' ? value * 1000 : Date.parse(value);
  if (!Number.isFinite(ms)) return { message: 'Expected an ISO 8601 date-time or epoch seconds' };
  const rounded = Math.round(ms);
  if (rounded < MIN_TIMESTAMP_MS || rounded > MAX_TIMESTAMP_MS) {
    return { message: 'Expected a time from 1970-01-01T00:00:00Z up to 2199-12-31T23:59:59.999Z' };
  }
  return rounded;
}

/** ISO 8601 string or epoch seconds -> epoch milliseconds. */
export const Timestamp = z
  .union([z.number(), z.string()], {
    error: (issue) => (issue.input === undefined ? 'Field required' : 'Expected an ISO 8601 date-time or epoch seconds'),
  })
  .transform((value, ctx) => {
    const ms = timestampMs(value);
    if (typeof ms === 'number') return ms;
    ctx.addIssue({ code: 'custom', message: ms.message });
    return z.NEVER;
  })
  .meta({ description: 'ISO 8601 date-time or epoch seconds' });

export const ContentBlock = z.looseObject({ type: z.string() });

/** Plain-string content is accepted (the seed's clients sometimes send it) and kept as one text block. */
const Content = z
  .union([z.array(ContentBlock), z.string()])
  .transform((content) => (typeof content === 'string' ? [{ type: 'text', text: content }] : content));

export const TemplateFormat = z.enum(['f-string', 'jinja2']);

export const ChatRole = z.enum(['system', 'user', 'assistant', 'tool', 'function', 'developer', 'placeholder']);

export const ChatMessage = z.looseObject({
  role: ChatRole,
  content: Content.default([]),
  name: z.string().nullish(),
  tool_calls: z.array(z.unknown()).nullish(),
  tool_call_id: z.string().nullish(),
  input_variables: z.array(z.string()).optional(),
  template_format: TemplateFormat.optional(),
});

export const CompletionTemplate = z.looseObject({
  type: z.literal('completion'),
  content: Content,
  template_format: TemplateFormat.default('f-string'),
  input_variables: z.array(z.string()).default([]),
});

export const ChatTemplate = z.looseObject({
  type: z.literal('chat'),
  messages: z.array(ChatMessage),
  tools: z.array(z.unknown()).nullish(),
  functions: z.array(z.unknown()).nullish(),
  tool_choice: z.unknown().optional(),
  input_variables: z.array(z.string()).default([]),
});

export const PromptTemplate = z.discriminatedUnion('type', [CompletionTemplate, ChatTemplate]);
export type PromptTemplate = z.output<typeof PromptTemplate>;

export const Tag = z.string().max(512);
export const Metadata = z.record(z.string().max(1024), z.string());
export const PositiveId = z.number().int().min(1);

/** Query strings carry text; these coerce and then apply the same rules as bodies. */
export const QueryInt = (schema: z.ZodNumber) => z.coerce.number().pipe(schema);

export const RequestStatus = z.enum(['SUCCESS', 'WARNING', 'ERROR']);

export const PageQuery = z.object({
  page: QueryInt(z.number().int().min(1)).default(1),
  per_page: QueryInt(z.number().int().min(1).max(100)).default(30),
});

/**
 * A template as logged: validated like PromptTemplate but stored exactly as sent (no defaults
 * filled in, string content left a string), so the log shows what the application really sent.
 */
const LoggedContent = z.union([z.array(ContentBlock), z.string()]);
export const LoggedTemplate = z.discriminatedUnion('type', [
  z.looseObject({
    type: z.literal('completion'),
    content: LoggedContent,
    template_format: TemplateFormat.optional(),
    input_variables: z.array(z.string()).optional(),
  }),
  z.looseObject({
    type: z.literal('chat'),
    messages: z.array(ChatMessage.extend({ content: LoggedContent.optional() })),
    tools: z.array(z.unknown()).nullish(),
    functions: z.array(z.unknown()).nullish(),
    input_variables: z.array(z.string()).optional(),
  }),
]);

/** OpenTelemetry ids as OTLP/JSON and the SDKs write them: lowercase hex (upper case accepted). */
export const TraceId = z.string().regex(/^[0-9a-fA-F]{32}$/, 'Expected 32 hex digits').transform((v) => v.toLowerCase());
export const SpanId = z.string().regex(/^[0-9a-fA-F]{16}$/, 'Expected 16 hex digits').transform((v) => v.toLowerCase());
// Responses. Nothing parses them at run time; test/openapi.test.ts parses real answers with them.

/** `success: true` in answers that carry it (PromptLayer's clients check it). */
export const Success = z.literal(true);
export const IsoDateTime = z.iso.datetime({ offset: true });
/** `204 No Content`. */
export const NoContent = z.void();

/** API.md's error body: every 4xx and 500 answer has this shape. */
export const ErrorBody = z.object({
  success: z.literal(false),
  message: z.string().meta({ description: 'One human sentence naming the problem (and the field, for 422).' }),
  detail: z.array(z.object({ loc: z.array(z.union([z.string(), z.number().int()])), msg: z.string(), type: z.string() })).optional(),
});

/** Content as the registry stores it: plain strings became one text block at publish. */
const StoredContent = z.array(z.looseObject({ type: z.string(), text: z.string().optional() }));

/** A template as the registry answers it: as published, with PromptTemplate's defaults filled in. */
export const StoredTemplate = z.discriminatedUnion('type', [
  z.looseObject({
    type: z.literal('completion'),
    content: StoredContent,
    template_format: TemplateFormat,
    input_variables: z.array(z.string()),
  }),
  z.looseObject({
    type: z.literal('chat'),
    messages: z.array(z.looseObject({ role: ChatRole, content: StoredContent })),
    input_variables: z.array(z.string()),
  }),
]);

/** API.md's page envelope; each list adds its items under its own name. */
export const PageFields = z.object({
  page: z.number().int(),
  per_page: z.number().int(),
  total: z.number().int(),
  pages: z.number().int(),
  has_next: z.boolean(),
  has_prev: z.boolean(),
  next_num: z.number().int().nullable(),
  prev_num: z.number().int().nullable(),
});
