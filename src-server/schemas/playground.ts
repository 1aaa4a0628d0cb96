import { z } from 'zod';

/**
 * A chat message in OpenAI's shape; `content` may also be PromptLayer content blocks (only text is
 * sent). With `input_variables`, its text is a template in `template_format` (default f-string).
 */
const PlaygroundMessage = z.object({
  template_format: z.enum(['f-string', 'jinja2']).optional(),
  role: z.enum(['system', 'developer', 'user', 'assistant', 'tool', 'function']),
  content: z.union([z.string().max(1_000_000), z.array(z.looseObject({ type: z.string(), text: z.string().optional() })).max(1000)]),
});

const Name = z.string().min(1).max(255);

/**
 * `POST /api/public/v2/playground/run`: messages, or a registry version by `prompt_name` (and
 * `version` or `label`; default `production`, then the latest). Rules zod's shape cannot say
 * (exactly one of messages and prompt_name; provider and model required without a version) are
 * the refinement's, so they answer the same 422 naming the field.
 */
export const PlaygroundRunBody = z
  .object({
    provider: Name.optional(),
    model: Name.optional(),
    parameters: z.record(z.string(), z.unknown()).optional(),
    messages: z.array(PlaygroundMessage).min(1).max(1000).optional(),
    prompt_name: z.string().min(1).max(512).optional(),
    version: z.number().int().min(1).optional(),
    label: Name.optional(),
    input_variables: z.record(z.string(), z.unknown()).optional(),
    stream: z.boolean().optional(),
  })
  .superRefine((body, ctx) => {
    const problem = (path: string, message: string) => ctx.addIssue({ code: 'custom', path: [path], message });
    if (body.messages && body.prompt_name) problem('prompt_name', 'Give either messages or prompt_name, not both');
    if (!body.messages && !body.prompt_name) problem('messages', 'Field required (or give prompt_name to run a registry version)');
    if (!body.prompt_name) {
      if (body.version !== undefined) problem('version', 'version needs prompt_name');
      if (body.label !== undefined) problem('label', 'label needs prompt_name');
      // A version names its own provider and model; plain messages must say where to go.
      if (!body.provider) problem('provider', 'Field required');
      if (!body.model) problem('model', 'Field required');
    }
    if (body.version !== undefined && body.label !== undefined) problem('label', 'Give either a version or a label, not both');
  });
export type PlaygroundRunBody = z.output<typeof PlaygroundRunBody>;

/** The answer, and the `data` of the stream's `done` event. */
export const PlaygroundAnswer = z.object({
  request_id: z.number().int().min(1).meta({ description: 'The logged request (`GET /api/public/v2/requests/{id}`).' }),
  output: z.string().meta({ description: "The assistant's text." }),
  input_tokens: z.number().int().min(0),
  output_tokens: z.number().int().min(0),
  price: z.number().min(0),
  latency_ms: z.number().int().min(0),
});
export type PlaygroundAnswer = z.output<typeof PlaygroundAnswer>;
