import { z } from 'zod';
import { asText, column } from '../cell-values';
import { CellError, columnType } from '../column-type';
import { ColumnRef, sourcePairAlias, withAliases } from '../config-fields';

export const DEFAULT_EMBEDDING_MODEL = 'text-embedding-3-small';

export const cosineSimilarity = columnType({
  id: 'COSINE_SIMILARITY',
  description: 'How alike two columns’ texts are in meaning: cosine similarity of their embeddings, 0 to 1.',
  config: withAliases(
    sourcePairAlias,
    z.object({
      sources: z.array(ColumnRef).length(2),
      engine: z.object({ provider: z.string().min(1).default('openai'), model: z.string().min(1).default(DEFAULT_EMBEDDING_MODEL) }).optional(),
    }),
  ),
  reads: (c) => c.sources,
  async run(c, ctx) {
    const texts = c.sources.map((name) => asText(column(ctx.row, name)));
    if (texts.some((t) => t.trim() === '')) throw new CellError('Cannot embed empty text.');
    const engine = c.engine ?? { provider: 'openai', model: DEFAULT_EMBEDDING_MODEL };
    const answer = await ctx.llm.embed(ctx, engine, texts, ctx.signal);
    const [a, b] = answer.vectors;
    if (!a || !b || a.length !== b.length || a.length === 0) throw new CellError('The provider returned embeddings of different sizes.');
    let dot = 0, na = 0, nb = 0;
    for (let i = 0; i < a.length; i++) {
      dot += a[i] * b[i];
      na += a[i] * a[i];
      nb += b[i] * b[i];
    }
    // Opposite directions are as unlike as texts get; clamping keeps the documented 0..1 range.
    const similarity = na === 0 || nb === 0 ? 0 : Math.min(1, Math.max(0, dot / Math.sqrt(na * nb)));
    return { value: Math.round(similarity * 1e6) / 1e6, cost: answer.cost, inputTokens: answer.inputTokens };
  },
});
