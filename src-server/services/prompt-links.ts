import type { PromptTemplate } from '../schemas/common';

/** A registry version as a logged request shows it. */
export interface PromptVersionView {
  prompt_template: unknown;
  commit_message: string | null;
  metadata: Record<string, unknown>;
}

export interface ResolvedPrompt {
  promptId: number;
  promptName: string;
  versionId: number;
  versionNumber: number;
  version: PromptVersionView;
}

export interface PromptLinkQuery {
  promptId?: number | null;
  promptName?: string | null;
  versionNumber?: number | null;
  label?: string | null;
}

/**
 * How request logging sees the prompt registry: resolve a link as given by a client, and show the
 * version a stored request points at. The registry (services/prompts) provides the real one.
 */
export interface PromptLinks {
  resolve(workspaceId: number, link: PromptLinkQuery): ResolvedPrompt | null;
  version(workspaceId: number, versionId: number): PromptVersionView | null;
}

/** For a server without a registry: nothing resolves, and logging still never drops data. */
export const noPromptLinks: PromptLinks = {
  resolve: () => null,
  version: () => null,
};

/** What a request answers as `prompt_version` when it has no registry link. */
export function requestAsVersion(
  input: PromptTemplate | unknown,
  provider: string,
  model: string,
  parameters: Record<string, unknown>,
): PromptVersionView {
  return { prompt_template: input, commit_message: null, metadata: { model: { provider, name: model, parameters } } };
}
