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
      const full = diskFullError(caught, dataDir);
      // The client is told; whoever runs the server needs to know too.
      if (full) log.error(`${ctx.method} ${ctx.path}: ${full.message}`);
      const error = full ?? caught;
      if (error instanceof AppError) {
        ctx.status = error.status;
        ctx.body = { ...error.extra, success: false, message: error.message, ...(error.detail ? { detail: error.detail } : {}) } satisfies z.input<typeof ErrorBody>;
        return;
      }
      log.error(`${ctx.method} ${ctx.path} failed`, error);
      ctx.status = 500;
      ctx.body = { success: false, message: 'Internal server error.' } satisfies z.input<typeof ErrorBody>;
    }
  };
}
