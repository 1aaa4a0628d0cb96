import { z } from 'zod';
import { callSignal, type OutboundResponse } from '../../outbound/http-client';
import { EgressBlockedError } from '../../outbound/policy';
import { CellError, columnType } from '../column-type';

const HttpUrl = z.string().url().refine((u) => /^https?:\/\//i.test(u), { message: 'Must be an http:// or https:// URL' });

export const endpoint = columnType({
  id: 'ENDPOINT',
  description: 'POSTs the row’s columns so far as JSON to your URL and returns its answer (JSON or text).',
  config: z.object({
    url: HttpUrl,
    headers: z.record(z.string(), z.string()).default({}),
    timeout_ms: z.number().int().min(1).max(300_000).default(30_000),
  }),
  reads: () => [],
  async run(c, ctx) {
    const limit = callSignal(ctx.signal, c.timeout_ms);
    let response: OutboundResponse;
    let text: string;
    try {
      response = await ctx.fetch({ workspaceId: ctx.workspaceId, reportId: ctx.reportId }, c.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/plain;q=0.9', ...c.headers },
        body: JSON.stringify(ctx.row),
        signal: limit.signal,
      });
      text = await response.text();
    } catch (error) {
      if (ctx.signal.aborted) throw error;
      if (error instanceof EgressBlockedError) throw new CellError(error.message);
      if (limit.timedOut) throw new CellError(`The endpoint did not answer within ${c.timeout_ms} ms.`);
      throw new CellError(`Could not reach the endpoint: ${String((error as Error).cause ?? (error as Error).message)}`);
    } finally {
      limit.dispose();
    }
    if (!response.ok) throw new CellError(`The endpoint answered ${response.status}: ${text.slice(0, 300)}`);
    if (/json/i.test(response.headers.get('content-type') ?? '')) {
      try {
        return { value: JSON.parse(text) };
      } catch {
        throw new CellError('The endpoint declared JSON but sent text that does not parse.');
      }
    }
    return { value: text };
  },
});
