import { z } from 'zod';

export const CreateWorkspaceBody = z.object({ name: z.string().trim().min(1).max(255) });
export const CreateApiKeyBody = z.object({ name: z.string().trim().min(1).max(255).default('API key') }).default({
  name: 'API key',
});
