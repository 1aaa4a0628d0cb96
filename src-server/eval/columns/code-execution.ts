import { z } from 'zod';
import { CellError, columnType } from '../column-type';

export const codeExecution = columnType({
  id: 'CODE_EXECUTION',
  description: 'Runs your JavaScript or Python code in a sandbox (no host access, time and memory limits) with the row as `data`; returns what it returns.',
  config: z.object({
    code: z.string().min(1).max(100_000),
    language: z.enum(['JAVASCRIPT', 'PYTHON']).default('JAVASCRIPT'),
    timeout_ms: z.number().int().min(1).max(30_000).optional(),
    memory_mb: z.number().int().min(1).max(256).optional(),
  }),
  reads: () => [],
  async run(c, ctx) {
    const limits = {
      ...(c.timeout_ms ? { timeoutMs: c.timeout_ms } : {}),
      ...(c.memory_mb ? { memoryBytes: c.memory_mb * 1024 * 1024 } : {}),
    };
    // A run's cells share its interpreters and nothing else's; canceling the run kills them.
    const scope = { key: `report:${ctx.reportId}`, signal: ctx.signal };
    try {
      const value = c.language === 'PYTHON'
        ? await ctx.sandbox.runPython(c.code, ctx.row, limits, scope)
        : await ctx.sandbox.runJavaScript(c.code, ctx.row, limits, scope);
      return { value };
    } catch (error) {
      throw new CellError((error as Error).message);
    }
  },
});
