import { z } from 'zod';
import { compileLinear } from './linear-regex';

/** A reference to another column of the report, by name. */
export const ColumnRef = z.string().min(1).max(255);

/** Which model a column calls; defaults come from the template or the column type. */
export const Engine = z.object({
  provider: z.string().min(1),
  model: z.string().min(1),
  parameters: z.record(z.string(), z.unknown()).default({}),
});
export type Engine = z.output<typeof Engine>;

/**
 * PromptLayer's docs also show older key spellings (`source1`/`source2`, `pattern`, `path`); they
 * are renamed before validation so both spellings are stored the same way.
 */
export function withAliases<S extends z.ZodType>(aliases: Record<string, string | ((config: Record<string, unknown>) => Record<string, unknown>)>, schema: S) {
  return z.preprocess((input) => {
    if (!input || typeof input !== 'object' || Array.isArray(input)) return input;
    let config = { ...(input as Record<string, unknown>) };
    for (const [from, to] of Object.entries(aliases)) {
      if (!(from in config)) continue;
      if (typeof to === 'function') config = to(config);
      else if (!(to in config)) config[to] = config[from];
      delete config[from];
    }
    return config;
  }, schema);
}

/** `source1`/`source2` → `sources: [a, b]`. */
export const sourcePairAlias = {
  source1: (config: Record<string, unknown>) =>
    'sources' in config ? config : { ...config, sources: [config.source1, ...('source2' in config ? [config.source2] : [])] },
  source2: (config: Record<string, unknown>) => config,
};

/** Compiled by the linear-time engine the columns run on, so what it refuses is a 422 at creation. */
export const RegexPattern = z.string().min(1).max(10_000).superRefine((pattern, ctx) => {
  try {
    compileLinear(pattern);
  } catch (error) {
    ctx.addIssue({ code: 'custom', message: (error as Error).message });
  }
});
