import type { Context, Next } from 'koa';
import type { z } from 'zod';
import { AppError, diskFullError } from '../errors';
import type { Logger } from '../logger';
import type { ErrorBody } from '../schemas/common';

/**
 * The one place errors become responses. AppError carries its status and API.md body; anything
 * else is a fault of ours: logged with its stack, answered 500 with no internals. A full disk,
 * wherever a write met it (the writer, the ingest thread, an upload's spool), is 507 naming
 * `dataDir`'s disk.
 */
export function errorMiddleware(log: Logger, dataDir: string) {
  return async (ctx: Context, next: Next) => {
    try {
      await next();
      if (ctx.status === 404 && ctx.body === undefined) {
        throw new AppError('not_found', `No route for ${ctx.method} ${ctx.path}.`);
      }
    } catch (caught) {
      const answer = errorAnswer(caught, `${ctx.method} ${ctx.path}`, log, dataDir);
      ctx.status = answer.status;
      ctx.body = answer.body;
    }
  };
}

/** The status and API.md body for an error met while serving `what` (`POST /log-request`). */
export function errorAnswer(caught: unknown, what: string, log: Logger, dataDir: string): { status: number; body: z.input<typeof ErrorBody> } {
  const full = diskFullError(caught, dataDir);
  // The client is told; whoever runs the server needs to know too.
  if (full) log.error(`${what}: ${full.message}`);
  const error = full ?? caught;
  if (error instanceof AppError) {
    return { status: error.status, body: { ...error.extra, success: false, message: error.message, ...(error.detail ? { detail: error.detail } : {}) } };
  }
  log.error(`${what} failed`, error);
  return { status: 500, body: { success: false, message: 'Internal server error.' } };
}
