import { z } from 'zod';
import { IsoDateTime, PageFields, PageQuery, PositiveId, PromptTemplate, QueryInt, StoredTemplate, Success, Tag } from './common';
import { ProviderClient } from './providers';

const OneOrMany = <T extends z.ZodType>(item: T) =>
  z.union([item, z.array(item)]).transform((v) => (Array.isArray(v) ? v : [v]) as z.output<T>[]);

/** 1–512 chars; no `/` (the SDK puts names in paths unencoded); not only digits (that reads as an id). */
export const PromptName = z
  .string()
  .min(1)
  .max(512)
  .refine((name) => !name.includes('/'), { message: "Template names may not contain '/'" })
  .refine((name) => !/^\d+$/.test(name), { message: 'Template names may not be only digits (those identify templates by id)' });

export const LabelName = z.string().min(1).max(255);

export const ModelMetadata = z.looseObject({
  provider: z.string().min(1),
  name: z.string().min(1),
  parameters: z.record(z.string(), z.unknown()).nullish().transform((v) => v ?? {}),
  api_type: z.string().min(1).nullish(),
});

/** `{model?, ...custom keys}`: custom keys are kept as given (keys ≤ 1024 chars, like request metadata). */
export const VersionMetadata = z
  .looseObject({ model: ModelMetadata.optional() })
  .superRefine((value, ctx) => {
    for (const key of Object.keys(value)) {
      if (key.length > 1024) ctx.addIssue({ code: 'custom', message: 'Metadata keys are at most 1024 characters', path: [key] });
    }
  });

/** `POST /rest/prompt-templates`. The SDK sends every field in both objects; extras are ignored. */
export const PublishBody = z.object({
  prompt_template: z.object({
    prompt_name: PromptName,
    tags: z.array(Tag).nullish(),
    folder_id: PositiveId.nullish(),
  }),
  prompt_version: z.object({
    prompt_template: PromptTemplate,
    commit_message: z.string().max(72).nullish(),
    metadata: VersionMetadata.nullish(),
    provider_id: PositiveId.nullish(),
    provider_base_url_name: z.string().min(1).nullish(),
    inference_client_name: z.string().min(1).nullish(),
  }),
  release_labels: z.array(LabelName).nullish(),
});
export type PublishBody = z.output<typeof PublishBody>;

const JsonObject = z.record(z.string(), z.unknown());

/** `POST /prompt-templates/{name-or-id}`; the SDK may send no body at all. */
export const FetchBody = z
  .object({
    version: z.number().int().gt(0).nullish(),
    label: LabelName.nullish(),
    provider: z.string().min(1).nullish(),
    model: z.string().min(1).nullish(),
    input_variables: JsonObject.nullish(),
    metadata_filters: JsonObject.nullish(),
    model_parameter_overrides: JsonObject.nullish(),
    skip_input_variable_rendering: z.boolean().nullish(),
  })
  .nullish()
  .transform((v) => v ?? {});
export type FetchBody = z.output<typeof FetchBody>;

export const IdentifierParam = z.object({ identifier: z.string().min(1) });

export const VersionQuery = z.object({
  version: QueryInt(z.number().int().gt(0)).optional(),
  label: LabelName.optional(),
});

export const ListQuery = PageQuery.extend({
  label: LabelName.optional(),
  name: z.string().max(512).optional(),
  tags: OneOrMany(Tag).optional(),
});
export type ListQuery = z.output<typeof ListQuery>;

export const CreateLabelBody = z.object({ name: LabelName, prompt_version_number: z.number().int().gt(0) });
export const MoveLabelBody = z.object({ prompt_version_number: z.number().int().gt(0) });
export const PromptIdParam = z.object({ prompt_id: QueryInt(z.number().int().min(1)) });

// Responses

/** `{model?: {provider, name, parameters, api_type?}, ...custom keys}` as published. */
const StoredMetadata = z.looseObject({
  model: z
    .looseObject({ provider: z.string(), name: z.string(), parameters: z.record(z.string(), z.unknown()), api_type: z.string().nullish() })
    .optional(),
});

export const PublishedTemplate = z.object({
  id: z.number().int(),
  prompt_name: z.string(),
  prompt_version_id: z.number().int(),
  version_number: z.number().int(),
  tags: z.array(z.string()),
  release_labels: z.array(z.string()),
  prompt_template: StoredTemplate,
  metadata: StoredMetadata,
  commit_message: z.string().nullable(),
  folder_id: z.number().int().nullable(),
});

/** One stored version of a template, unrendered. */
export const TemplateVersion = z.object({
  id: z.number().int(),
  prompt_name: z.string(),
  prompt_template: StoredTemplate,
  metadata: StoredMetadata,
  commit_message: z.string().nullable(),
  /** The version's model call in its provider's own argument names; null without `metadata.model`. */
  llm_kwargs: z.record(z.string(), z.unknown()).nullable(),
  version: z.number().int(),
  prompt_version_id: z.number().int(),
  release_labels: z.array(z.string()),
  tags: z.array(z.string()),
  folder_id: z.number().int().nullable(),
  workspace_id: z.number().int(),
  created_at: IsoDateTime,
});
export const TemplatePage = PageFields.extend({ items: z.array(TemplateVersion) });

/** The version rendered with the caller's variables, and the provider the SDK should call. */
export const TemplateForUse = z.object({
  id: z.number().int(),
  prompt_name: z.string(),
  tags: z.array(z.string()),
  workspace_id: z.number().int(),
  version: z.number().int(),
  prompt_version_id: z.number().int(),
  prompt_template: StoredTemplate,
  metadata: StoredMetadata,
  commit_message: z.string().nullable(),
  llm_kwargs: z.record(z.string(), z.unknown()).nullable(),
  snippets: z.array(z.never()),
  warning: z.null(),
  provider_base_url: z.object({ id: z.number().int(), name: z.string(), provider: ProviderClient, url: z.string() }).nullable(),
  /** `api_key` is absent when the provider has none stored, so the SDK uses its environment's. */
  custom_provider: z
    .object({
      id: z.number().int(),
      name: z.string(),
      client: ProviderClient,
      base_url: z.string().nullable(),
      workspace_id: z.number().int(),
      api_key: z.string().optional(),
    })
    .nullable(),
});

export const PromptVersion = z.object({
  id: z.number().int(),
  prompt_id: z.number().int(),
  version_number: z.number().int(),
  prompt_template: StoredTemplate,
  commit_message: z.string().nullable(),
  metadata: StoredMetadata,
  release_labels: z.array(z.string()),
  created_at: IsoDateTime,
});
export const PromptVersionPage = PageFields.extend({ items: z.array(PromptVersion) });

export const ReleaseLabel = z.object({
  id: z.number().int(),
  name: z.string(),
  prompt_id: z.number().int(),
  prompt_version_id: z.number().int(),
  prompt_version_number: z.number().int(),
  created_at: IsoDateTime,
  updated_at: IsoDateTime,
});
export const ReleaseLabelList = z.object({ success: Success, release_labels: z.array(ReleaseLabel) });
