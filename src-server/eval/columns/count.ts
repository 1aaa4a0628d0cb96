import { z } from 'zod';
import { asText, column } from '../cell-values';
import { columnType } from '../column-type';
import { ColumnRef } from '../config-fields';

const counters = {
  chars: (t: string) => [...t].length,
  words: (t: string) => t.split(/\s+/).filter(Boolean).length,
  sentences: (t: string) => t.split(/(?<=[.!?。！？])\s*/).filter((s) => s.trim() !== '').length,
  paragraphs: (t: string) => t.split(/\n\s*\n/).filter((p) => p.trim() !== '').length,
};

export const count = columnType({
  id: 'COUNT',
  description: 'Counts the characters, words, sentences or paragraphs of a column’s text.',
  config: z.object({ source: ColumnRef, type: z.enum(['chars', 'words', 'sentences', 'paragraphs']).default('chars') }),
  reads: (c) => [c.source],
  run: (c, ctx) => ({ value: counters[c.type](asText(column(ctx.row, c.source))) }),
});
