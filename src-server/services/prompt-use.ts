import { invalidField } from '../errors';
import { buildLlmKwargs, defaultApiType, FALLBACK_PROVIDER, isProviderId, providerModules, type ProviderId } from '../providers/index';
import { isObject, type Json } from '../providers/kwargs-shape';
import { TemplateRenderError } from '../templates/jinja2';
import { renderPromptTemplate } from '../templates/render-prompt';
import type { ProviderConfig, ProviderService } from './providers';

/** A version's content as stored: what is needed to turn it into a provider call. */
export interface VersionContent {
  prompt_template: Json;
  metadata: Json;
  /** The provider the version was published for, if any. */
  provider_id?: number | null;
}

export interface UseOptions {
  input_variables?: Json | null;
  /** Run on another provider (built-in or stored) or model than the version names. */
  provider?: string | null;
  model?: string | null;
  model_parameter_overrides?: Json | null;
  skip_input_variable_rendering?: boolean | null;
}

/** A version made ready to send: rendered template, effective metadata, kwargs and provider. */
export interface PreparedPrompt {
  prompt_template: Json;
  metadata: Json;
  /** `null` when the version names no model (`metadata.model`). */
  llm_kwargs: Json | null;
  client: ProviderId | null;
  /** The stored provider to call (key in full), or null for a built-in one (environment keys). */
  provider: ProviderConfig | null;
}

/**
 * Renders a version with variables and builds provider-ready kwargs. Which provider: the one the
 * version was published for, else a stored provider named by `metadata.model.provider` (or by
 * `options.provider`), else the built-in client of that name. OpenAI-style calls default
 * `metadata.model.api_type` to `chat-completions`, since the SDK picks the endpoint from it.
 */
export function prepareForUse(providers: ProviderService, workspaceId: number, content: VersionContent, options: UseOptions = {}): PreparedPrompt {
  const variables = options.input_variables ?? {};
  let rendered = content.prompt_template;
  if (!options.skip_input_variable_rendering) {
    try {
      rendered = renderPromptTemplate(content.prompt_template, variables);
    } catch (error) {
      if (error instanceof TemplateRenderError) throw invalidField(['body', 'input_variables'], `The template could not be rendered: ${error.message}`);
      throw error;
    }
  }

  const storedModel = isObject(content.metadata.model) ? content.metadata.model : null;
  if (!storedModel && !options.provider) return { prompt_template: rendered, metadata: content.metadata, llm_kwargs: null, client: null, provider: null };

  const model: Json = { ...(storedModel ?? { name: options.model ?? '', parameters: {} }) };
  let provider: ProviderConfig | null = null;
  if (options.provider) {
    model.provider = options.provider;
  } else if (content.provider_id != null) {
    provider = providers.byId(workspaceId, content.provider_id);
  }
  if (options.model) model.name = options.model;
  const providerName = String(model.provider ?? '');
  if (!provider && !isProviderId(providerName)) provider = providers.byName(workspaceId, providerName);

  const client: ProviderId = provider?.client ?? (isProviderId(providerName) ? providerName : FALLBACK_PROVIDER);
  const module = providerModules[client];
  if (module.sdkReadsApiType) model.api_type = typeof model.api_type === 'string' && model.api_type ? model.api_type : defaultApiType(module);
  const parameters = { ...(isObject(model.parameters) ? model.parameters : {}), ...(options.model_parameter_overrides ?? {}) };
  const llm_kwargs = buildLlmKwargs(client, model.api_type as string | undefined, { template: rendered, model: String(model.name ?? ''), parameters });
  return { prompt_template: rendered, metadata: { ...content.metadata, model }, llm_kwargs, client, provider };
}

/** How the SDK reads a provider: `provider_base_url.url` and `custom_provider.{client, base_url, api_key}`. */
export function providerFields(provider: ProviderConfig | null) {
  if (!provider) return { provider_base_url: null, custom_provider: null };
  return {
    provider_base_url: provider.base_url ? { id: provider.id, name: provider.name, provider: provider.client, url: provider.base_url } : null,
    custom_provider: {
      id: provider.id,
      name: provider.name,
      client: provider.client,
      base_url: provider.base_url,
      workspace_id: provider.workspace_id,
      // Absent rather than null, so the SDK falls back to the environment's key.
      ...(provider.api_key === null ? {} : { api_key: provider.api_key }),
    },
  };
}
