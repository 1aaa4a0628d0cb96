import type { z } from 'zod';

/** One problem with the input, in FastAPI's shape so both PromptLayer-style clients understand it. */
export interface ErrorDetail {
  loc: Array<string | number>;
  msg: string;
  type: string;
}

export type ErrorCode =
  | 'invalid_input'
  | 'bad_request'
  | 'unauthenticated'
  | 'forbidden'
  | 'not_found'
  | 'conflict'
  | 'payload_too_large'
  | 'unsupported_media_type'
  | 'bad_gateway'
  | 'insufficient_storage';

const statusOf: Record<ErrorCode, number> = {
  invalid_input: 422,
  bad_request: 400,
  unauthenticated: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  // An LLM provider failed a call the server made for the user (the playground): not the client's input, not our fault.
  bad_gateway: 502,
  insufficient_storage: 507,
};

/** The only error type services throw; http/errors.ts turns it into API.md's body. */
export class AppError extends Error {
  readonly status: number;
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly detail?: ErrorDetail[],
    /** More fields for the body, beside `message` (e.g. the playground's `request_id` of the logged failure). */
    readonly extra?: Record<string, unknown>,
  ) {
    super(message);
    this.status = statusOf[code];
  }
}

/** SQLite's "database or disk is full" and the OS's "no space left on device". */
const DISK_FULL_CODES = new Set(['SQLITE_FULL', 'ENOSPC']);

/**
 * A write that failed because the disk is full, as the 507 the client can act on (the default
 * would be a 500 that says nothing). Nothing of the failed request was committed, and writes work
 * again as soon as space is freed: SQLite rolls the transaction back and keeps the file intact.
 */
export function diskFullError(error: unknown, dataDir: string): AppError | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code !== 'string' || !DISK_FULL_CODES.has(code)) return undefined;
  return new AppError(
    'insufficient_storage',
    `The disk holding ${dataDir} is full: this request was not saved. Free some space on it; writes work again without a restart.`,
  );
}

export const notFound = (what: string) => new AppError('not_found', `${what} not found.`);

/** A 422 for a single field, for rules zod cannot express (cross-field, database-backed). */
export function invalidField(loc: ErrorDetail['loc'], msg: string, type = 'value_error'): AppError {
  return new AppError('invalid_input', `Invalid ${describeLoc(loc)}: ${msg}`, [{ loc, msg, type }]);
}

export function describeLoc(loc: ErrorDetail['loc']): string {
  const [where, ...path] = loc;
  if (path.length === 0) return `request ${where}`;
  return `${where === 'query' ? 'query parameter' : 'field'} '${path.join('.')}'`;
}

/** zod issues → FastAPI-style detail; the message names the first bad field. */
export function fromZodError(error: z.ZodError, where: 'body' | 'query' | 'path'): AppError {
  const detail: ErrorDetail[] = error.issues.map((issue) => {
    const loc: ErrorDetail['loc'] = [where, ...issue.path.map((p) => (typeof p === 'symbol' ? String(p) : p))];
    const missing = issue.message === 'Field required' || (issue.code === 'invalid_type' && /received undefined/.test(issue.message));
    return {
      loc,
      msg: missing ? 'Field required' : issue.message,
      type: missing ? 'missing' : issue.code,
    };
  });
  const first = detail[0];
  return new AppError('invalid_input', `Invalid ${describeLoc(first.loc)}: ${first.msg}`, detail);
}
