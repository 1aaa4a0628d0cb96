import { z } from 'zod';
import { asText, column } from '../cell-values';
import { columnType } from '../column-type';
import { ColumnRef, Engine } from '../config-fields';

/** The model judging and extracting columns use when they name none. */
export const DEFAULT_JUDGE = { provider: 'openai', model: 'gpt-4o-mini', parameters: { temperature: 0 } };

export const aiDataExtraction = columnType({
  id: 'AI_DATA_EXTRACTION',
  description: 'Asks a model to extract what a query describes from a column’s text.',
  config: z.object({ source: ColumnRef, query: z.string().min(1).max(20_000), engine: Engine.optional() }),
  reads: (c) => [c.source],
  async run(c, ctx) {
    const answer = await ctx.llm.chat(
      ctx,
      c.engine ?? DEFAULT_JUDGE,
      [
        { role: 'system', content: 'Extract the requested information from the text. Reply with the extracted text only, nothing else.' },
        { role: 'user', content: `Extract: ${c.query}\n\nText:\n${asText(column(ctx.row, c.source))}` },
      ],
      ctx.signal,
    );
    return { value: answer.text.trim(), cost: answer.cost, inputTokens: answer.inputTokens, outputTokens: answer.outputTokens };
  },
});
