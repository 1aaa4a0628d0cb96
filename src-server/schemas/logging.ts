import { z } from 'zod';
import { LoggedTemplate, Metadata, PositiveId, RequestStatus, Success, Tag, Timestamp } from './common';
import { LinkedVersion } from './explorer';

/**
 * PromptLayer's link from a request to its span; the request joins the span's trace. Logging never
 * drops data, so anything is accepted: 16 hex digits as the JS SDK sends, a decimal integer (an
 * OpenTelemetry Python span id printed as a number) is turned into hex, and the all-zero id of a
 * span that is not recorded means no link.
 */
const SpanLink = z
  .union([z.string().max(64), z.number().int().min(0)])
  .nullish()
  .transform(spanLinkId);

/** SpanLink's transform, shared with the hand-written fast path (fast-log-request-body.ts). */
export function spanLinkId(v: string | number | null | undefined): string | null {
  if (v === null || v === undefined || v === '') return null;
  const text = String(v).trim();
  const id = /^\d+$/.test(text) && !/^[0-9a-f]{16}$/i.test(text) ? BigInt(text).toString(16).padStart(16, '0') : text.toLowerCase();
  return /^0+$/.test(id) ? null : id;
}

/** `POST /log-request`: the seed's body, its defaults and limits, plus API.md's additions. */
export const LogRequestBody = z.object({
  provider: z.string().min(1),
  model: z.string().min(1),
  input: LoggedTemplate,
  output: LoggedTemplate,
  request_start_time: Timestamp,
  request_end_time: Timestamp,
  parameters: z.record(z.string(), z.unknown()).nullish().transform((v) => v ?? {}),
  tags: z.array(Tag).nullish().transform((v) => v ?? []),
  metadata: Metadata.nullish().transform((v) => v ?? {}),
  prompt_name: z.string().nullish(),
  prompt_id: PositiveId.nullish(),
  prompt_version_number: z.number().int().gt(0).nullish(),
  prompt_input_variables: z.record(z.string(), z.unknown()).nullish().transform((v) => v ?? {}),
  input_tokens: z.number().int().min(0).default(0),
  output_tokens: z.number().int().min(0).default(0),
  /** Absent: the request costs 0 with `price_source: none` (API.md §7). */
  price: z.number().min(0).optional(),
  function_name: z.string().default(''),
  score: z.number().int().min(0).max(100).nullish(),
  score_name: z.string().min(1).max(255).nullish(),
  status: RequestStatus.default('SUCCESS'),
  error_type: z.string().max(255).nullish(),
  error_message: z.string().max(1024).nullish(),
  api_type: z.string().nullish(),
  group_id: PositiveId.nullish(),
  span_id: SpanLink,
  api_key: z.string().optional(),
});
export type LogRequestBody = z.output<typeof LogRequestBody>;

/** `POST /track-request`: what the SDK's `run()` and provider wrappers send. */
export const TrackRequestBody = z.object({
  function_name: z.string().default(''),
  provider_type: z.string().default('openai'),
  args: z.array(z.unknown()).default([]),
  kwargs: z.record(z.string(), z.unknown()).default({}),
  request_response: z.unknown(),
  request_start_time: Timestamp,
  request_end_time: Timestamp,
  tags: z.array(Tag).nullish().transform((v) => v ?? []),
  metadata: Metadata.nullish().transform((v) => v ?? {}),
  group_id: PositiveId.nullish(),
  prompt_id: z.union([PositiveId, z.string()]).nullish(),
  prompt_version: z.number().int().gt(0).nullish(),
  prompt_input_variables: z.record(z.string(), z.unknown()).nullish().transform((v) => v ?? {}),
  return_prompt_blueprint: z.boolean().default(false),
  /** The client's own price for the call; else the provider's reported cost, else the price table. */
  price: z.number().min(0).nullish(),
  span_id: SpanLink,
  status: RequestStatus.default('SUCCESS'),
  error_type: z.string().max(255).nullish(),
  error_message: z.string().max(1024).nullish(),
  score: z.number().int().min(0).max(100).nullish(),
  api_key: z.string().optional(),
});
export type TrackRequestBody = z.output<typeof TrackRequestBody>;

const RequestId = z.number().int().min(1);

export const TrackScoreBody = z.object({
  request_id: RequestId,
  score: z.number().int().min(0).max(100),
  name: z.string().min(1).max(255).nullish(),
  score_name: z.string().min(1).max(255).nullish(),
});

export const TrackMetadataBody = z.object({ request_id: RequestId, metadata: Metadata });

export const TrackPromptBody = z.object({
  request_id: RequestId,
  prompt_name: z.string().min(1).max(512),
  prompt_input_variables: z.record(z.string(), z.unknown()).nullish().transform((v) => v ?? {}),
  version: z.number().int().gt(0).nullish(),
  label: z.string().min(1).nullish(),
});

export const TrackGroupBody = z.object({ request_id: RequestId, group_id: PositiveId });

export const CreateGroupBody = z.object({}).optional();

// Responses

/** `warning`: the request was stored, but something in it was not understood (e.g. an unknown prompt). */
const Warning = z.string().optional();

export const LoggedRequest = z.object({
  id: z.number().int(),
  prompt_version: LinkedVersion,
  status: RequestStatus,
  error_type: z.string().nullable(),
  error_message: z.string().nullable(),
  warning: Warning,
});

export const TrackedRequest = z.object({
  success: Success,
  request_id: z.number().int(),
  /** With `return_prompt_blueprint`: the call as a template the registry could store. */
  prompt_blueprint: z
    .object({ prompt_template: z.record(z.string(), z.unknown()), commit_message: z.null(), metadata: z.record(z.string(), z.unknown()) })
    .nullable(),
  message: z.string(),
  warning: Warning,
});

export const TrackAnswer = z.object({ success: Success, warning: Warning });
export const CreatedGroup = z.object({ success: Success, id: z.number().int() });
