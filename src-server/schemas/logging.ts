import { z } from 'zod';
import { LoggedTemplate, Metadata, PositiveId, RequestStatus, Success, Tag, Timestamp } from './common';
import { LinkedVersion } from './explorer';

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
  price: z.number().min(0).default(0),
  function_name: z.string().default(''),
  score: z.number().int().min(0).max(100).nullish(),
  score_name: z.string().min(1).max(255).nullish(),
  status: RequestStatus.default('SUCCESS'),
  error_type: z.string().max(255).nullish(),
  error_message: z.string().max(1024).nullish(),
  api_type: z.string().nullish(),
  group_id: PositiveId.nullish(),
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
  span_id: z.string().nullish(),
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
