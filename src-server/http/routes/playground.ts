import { PassThrough } from 'node:stream';
import { AppError } from '../../errors';
import type { Logger } from '../../logger';
import { PlaygroundAnswer, PlaygroundRunBody } from '../../schemas/playground';
import type { PlaygroundService } from '../../services/playground';
import { route, type Route } from '../route';

export function playgroundRoutes(playground: PlaygroundService, log: Logger): Route[] {
  return [
    route({
      method: 'post', path: '/api/public/v2/playground/run', tag: 'Playground',
      summary: 'Run messages or a prompt version on a provider and log the call; with `stream: true` the answer is Server-Sent Events (`delta`…, then `done` with this body, or `error`)',
      auth: 'key', body: PlaygroundRunBody,
      response: PlaygroundAnswer,
      handler: ({ body, principal, ctx }) => {
        const prepared = playground.prepare(principal.workspaceId, body);
        // A client that leaves (closes the tab, presses Stop) cancels the provider call.
        const gone = new AbortController();
        ctx.res.once('close', () => gone.abort());
        if (!body.stream) return playground.run(principal.workspaceId, prepared, gone.signal);

        const stream = new PassThrough();
        const frame = (event: string, data: unknown) => stream.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
        // Node sends the headers with the first bytes: without these, a slow model held the 200 back
        // until its first token, and a client could not tell "connected, waiting" from "stuck".
        stream.write(': started\n\n');
        playground
          .run(principal.workspaceId, prepared, gone.signal, (text) => frame('delta', { text }))
          .then((answer) => frame('done', answer))
          .catch((error: unknown) => {
            if (gone.signal.aborted) return;
            if (error instanceof AppError) return frame('error', { ...error.extra, status: error.status, message: error.message });
            log.error(`${ctx.method} ${ctx.path} failed while streaming`, error);
            frame('error', { status: 500, message: 'Internal server error.' });
          })
          .finally(() => stream.end());
        ctx.type = 'text/event-stream';
        ctx.set('cache-control', 'no-cache');
        ctx.set('x-accel-buffering', 'no');
        return stream;
      },
    }),
  ];
}
