import { z } from 'zod';
import { asText, column } from '../cell-values';
import { CellError, columnType } from '../column-type';
import { ColumnRef, Engine } from '../config-fields';
import { templateMessages } from '../prompt-messages';

const Config = z
  .object({
    template: z.object({ name: z.string().min(1).max(512), version_number: z.number().int().min(1).nullish(), label: z.string().min(1).nullish() }).optional(),
    inline_template: z.object({ prompt_template: z.record(z.string(), z.unknown()), metadata: z.record(z.string(), z.unknown()).nullish() }).optional(),
    prompt_template_variable_mappings: z.record(z.string(), ColumnRef).default({}),
    engine: Engine.optional(),
  })
  .refine((c) => (c.template ? 1 : 0) + (c.inline_template ? 1 : 0) === 1, {
    message: 'Give exactly one of template or inline_template',
    path: ['template'],
  })
  .refine((c) => !c.inline_template || ['chat', 'completion'].includes(String(c.inline_template.prompt_template.type)), {
    message: "prompt_template.type must be 'chat' or 'completion'",
    path: ['inline_template', 'prompt_template', 'type'],
  });

export const promptTemplate = columnType({
  id: 'PROMPT_TEMPLATE',
  description: 'Renders a prompt template with values from the row and returns the model’s answer.',
  config: Config,
  reads: (c) => Object.values(c.prompt_template_variable_mappings),
  async run(c, ctx) {
    const version = c.template
      ? ctx.prompts.resolve(ctx.workspaceId, c.template)
      : { prompt_template: c.inline_template!.prompt_template, metadata: c.inline_template!.metadata ?? {} };
    if (!version) {
      const which = c.template!.label ? `label '${c.template!.label}'` : c.template!.version_number ? `version ${c.template!.version_number}` : 'a version';
      throw new CellError(`Prompt template '${c.template!.name}' has no ${which} in this workspace.`);
    }
    const variables: Record<string, unknown> = {};
    for (const [variable, source] of Object.entries(c.prompt_template_variable_mappings)) variables[variable] = asText(column(ctx.row, source));
    const rendered = ctx.prompts.render(version.prompt_template, variables);
    const model = (version.metadata?.model ?? {}) as { provider?: string; name?: string; parameters?: Record<string, unknown> };
    const engine = c.engine ?? (model.provider && model.name ? { provider: model.provider, model: model.name, parameters: model.parameters ?? {} } : null);
    if (!engine) throw new CellError('The template names no model (metadata.model); set the column’s engine.');
    const answer = await ctx.llm.chat(ctx, engine, templateMessages(rendered), ctx.signal);
    return { value: answer.text, cost: answer.cost, inputTokens: answer.inputTokens, outputTokens: answer.outputTokens };
  },
});
