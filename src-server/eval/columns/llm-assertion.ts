import { z } from 'zod';
import { asText, column } from '../cell-values';
import { CellError, columnType, type CellContext } from '../column-type';
import { ColumnRef, Engine } from '../config-fields';
import { DEFAULT_JUDGE } from './ai-data-extraction';

const Config = z
  .object({
    source: ColumnRef,
    prompt: z.string().min(1).max(20_000).optional(),
    prompt_source: ColumnRef.optional(),
    variable_mappings: z.record(z.string(), ColumnRef).default({}),
    engine: Engine.optional(),
  })
  .refine((c) => (c.prompt === undefined) !== (c.prompt_source === undefined), { message: 'Give exactly one of prompt or prompt_source', path: ['prompt'] });

/** Reads the judge's first word: the prompt asks for a bare true/false. */
export function readVerdict(text: string): boolean {
  const word = /[a-z]+/i.exec(text)?.[0]?.toLowerCase();
  if (word === 'true' || word === 'yes' || word === 'pass' || word === 'passed') return true;
  if (word === 'false' || word === 'no' || word === 'fail' || word === 'failed') return false;
  throw new CellError(`The model's answer is not true or false: ${JSON.stringify(text.slice(0, 120))}`);
}

async function ask(question: string, subject: string, ctx: CellContext, engine: z.output<typeof Engine>) {
  return ctx.llm.chat(
    ctx,
    engine,
    [
      { role: 'system', content: 'You check a text against one statement. Answer with exactly one word: true or false.' },
      { role: 'user', content: `Statement: ${question}\n\nText:\n${subject}` },
    ],
    ctx.signal,
  );
}

export const llmAssertion = columnType({
  id: 'LLM_ASSERTION',
  description: 'Asks a model whether a statement holds for a column’s text; true or false (one per prompt for a JSON list).',
  config: Config,
  reads: (c) => [c.source, ...(c.prompt_source ? [c.prompt_source] : []), ...Object.values(c.variable_mappings)],
  async run(c, ctx) {
    const raw = c.prompt ?? asText(column(ctx.row, c.prompt_source!));
    const fill = (text: string) =>
      text.replace(/\{(\w+)\}/g, (whole, name: string) => (name in c.variable_mappings ? asText(column(ctx.row, c.variable_mappings[name])) : whole));
    let prompts: string[] | null = null;
    try {
      const parsed: unknown = JSON.parse(raw);
      if (Array.isArray(parsed) && parsed.every((p) => typeof p === 'string')) prompts = parsed;
    } catch {
      // a plain statement
    }
    const subject = asText(column(ctx.row, c.source));
    const engine = c.engine ?? DEFAULT_JUDGE;
    let cost = 0, inputTokens = 0, outputTokens = 0;
    const judge = async (prompt: string) => {
      const answer = await ask(fill(prompt), subject, ctx, engine);
      cost += answer.cost;
      inputTokens += answer.inputTokens;
      outputTokens += answer.outputTokens;
      return readVerdict(answer.text);
    };
    if (!prompts) return { value: await judge(raw), cost, inputTokens, outputTokens };
    const value: Record<string, boolean> = {};
    for (const prompt of prompts) value[prompt] = await judge(prompt);
    return { value, cost, inputTokens, outputTokens };
  },
});
