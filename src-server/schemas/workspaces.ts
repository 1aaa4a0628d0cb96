import { z } from 'zod';
import { IsoDateTime } from './common';

export const CreateWorkspaceBody = z.object({ name: z.string().trim().min(1).max(255) });
export const CreateApiKeyBody = z.object({ name: z.string().trim().min(1).max(255).default('API key') }).default({
  name: 'API key',
});

// Responses

/** The new key is in `api_key` once, here; it is never shown again. */
export const CreatedWorkspace = z.object({
  workspace: z.object({ id: z.number().int(), name: z.string() }),
  api_key: z.string(),
});

const ApiKey = z.object({ id: z.number().int(), name: z.string(), prefix: z.string(), created_at: IsoDateTime });
/** `key` is the whole key, shown once. */
export const CreatedApiKey = z.object({ api_key: ApiKey, key: z.string() });
/** `current`: the key (or session) this request was made with. */
export const ApiKeyList = z.object({ api_keys: z.array(ApiKey.extend({ current: z.boolean() })) });
export const Session = z.object({ token: z.string(), expires_at: IsoDateTime });
