import { z } from 'zod';
import { asJson } from '../cell-values';
import { columnType } from '../column-type';

export const variable = columnType({
  id: 'VARIABLE',
  description: 'The same constant text or JSON in every row.',
  config: z.object({
    value: z.discriminatedUnion('type', [
      z.object({ type: z.literal('string'), value: z.string().max(1_000_000) }),
      z.object({ type: z.literal('json'), value: z.unknown() }),
    ]),
  }).superRefine((c, ctx) => {
    if (c.value.type !== 'json' || typeof c.value.value !== 'string') return;
    try {
      JSON.parse(c.value.value);
    } catch {
      ctx.addIssue({ code: 'custom', message: 'Not valid JSON text', path: ['value', 'value'] });
    }
  }),
  reads: () => [],
  run: (c) => ({ value: c.value.type === 'string' ? c.value.value : asJson(c.value.value ?? null, 'value') }),
});
