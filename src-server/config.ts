import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { z } from 'zod';
import { defaultDataDir } from './data-dir';
import { KEEP_DAYS_MAX, MAX_BYTES_MAX, MAX_BYTES_MIN } from './schemas/system';

/**
 * Every setting `promptledger serve` and `promptledger start` read, from a flag or else an
 * environment variable, checked once here: a bad value stops the start with one line naming the
 * flag or variable it came from, instead of NaN or a different folder per command.
 */
export interface Config {
  host: string;
  /** 0 picks a free port; `start` tries the next ports when this one is taken. */
  port: number;
  dataDir: string;
  maxBodyBytes: number;
  /** PROMPTLEDGER_API_KEY: accepted for the default workspace (empty = none). */
  apiKey?: string;
  /** PROMPTLEDGER_EVAL_CONCURRENCY: in-flight LLM calls per provider and rows per run. */
  evalConcurrency?: number;
  /** --keep-days / PROMPTLEDGER_KEEP_DAYS: saved as retention's keep_days at start. */
  keepDays?: number;
  /** --max-gb / PROMPTLEDGER_MAX_GB (decimal GB, 10^9 bytes): saved as retention's max_bytes at start. */
  maxBytes?: number;
  /** The built UI served at `/`; undefined with `serve --no-ui`. */
  staticDir?: string;
  /** `start` only: serve in the terminal even when a window could open. */
  headless: boolean;
}

export type Command = 'serve' | 'start';

/** Fixed, so a local app's PROMPTLAYER_BASE_URL keeps working across starts. */
export const DEFAULT_PORT = 8420;
export const DEFAULT_MAX_BODY_BYTES = 50 * 1024 * 1024;

/** Thrown for a bad flag or variable; the CLI prints the message alone and exits 1. */
export class ConfigError extends Error {}

const wholeNumber = (rule: string, min: number, max = Number.MAX_SAFE_INTEGER) =>
  z
    .string()
    .trim()
    .regex(/^\d+$/, rule)
    .transform(Number)
    .pipe(z.number().int().min(min, rule).max(max, rule));

const decimalGb = z
  .string()
  .trim()
  .regex(/^\d+(\.\d+)?$/, 'use a number of GB from 0.001 to 1000000')
  .transform((gb) => Math.round(Number(gb) * 1e9))
  .pipe(z.number().min(MAX_BYTES_MIN, 'use a number of GB from 0.001 to 1000000').max(MAX_BYTES_MAX, 'use a number of GB from 0.001 to 1000000'));

const SETTINGS = {
  host: { flag: 'host', env: 'PROMPTLEDGER_HOST', schema: z.string().trim().min(1, 'use a host name or IP address') },
  port: { flag: 'port', env: 'PROMPTLEDGER_PORT', schema: wholeNumber('use a whole number from 0 to 65535 (0 picks a free port)', 0, 65535) },
  dataDir: { flag: 'data-dir', env: 'PROMPTLEDGER_DATA_DIR', schema: z.string().trim().min(1, 'use a folder path (leave it unset for the OS user-data folder)') },
  maxBodyBytes: { flag: 'max-body-bytes', env: 'PROMPTLEDGER_MAX_BODY_BYTES', schema: wholeNumber('use a whole number of bytes greater than 0', 1) },
  evalConcurrency: { flag: 'eval-concurrency', env: 'PROMPTLEDGER_EVAL_CONCURRENCY', schema: wholeNumber('use a whole number from 1 to 1000', 1, 1000) },
  keepDays: { flag: 'keep-days', env: 'PROMPTLEDGER_KEEP_DAYS', schema: wholeNumber(`use a whole number of days from 1 to ${KEEP_DAYS_MAX}`, 1, KEEP_DAYS_MAX) },
  maxBytes: { flag: 'max-gb', env: 'PROMPTLEDGER_MAX_GB', schema: decimalGb },
} as const;

type Setting = keyof typeof SETTINGS;
type Parsed<K extends Setting> = z.output<(typeof SETTINGS)[K]['schema']>;

/** Reads `promptledger <command> [flags]` and the environment; throws ConfigError on a bad value. */
export function loadConfig(command: Command, argv: string[], env: NodeJS.ProcessEnv = process.env): Config {
  const values = parseFlags(command, argv);
  function read<K extends Setting>(key: K): Parsed<K> | undefined {
    const { flag, env: name, schema } = SETTINGS[key];
    const fromFlag = values[flag];
    const raw = typeof fromFlag === 'string' ? fromFlag : env[name];
    if (raw === undefined) return undefined;
    const result = schema.safeParse(raw);
    if (result.success) return result.data as Parsed<K>;
    const source = typeof fromFlag === 'string' ? `--${flag}` : name;
    throw new ConfigError(`Invalid ${source} ${JSON.stringify(raw)}: ${result.error.issues[0].message}.`);
  }
  return {
    host: read('host') ?? '127.0.0.1',
    port: read('port') ?? DEFAULT_PORT,
    dataDir: read('dataDir') ?? defaultDataDir(env),
    maxBodyBytes: read('maxBodyBytes') ?? DEFAULT_MAX_BODY_BYTES,
    apiKey: env.PROMPTLEDGER_API_KEY || undefined,
    evalConcurrency: read('evalConcurrency'),
    keepDays: read('keepDays'),
    maxBytes: read('maxBytes'),
    staticDir: values['no-ui'] === true ? undefined : join(packageRoot(), 'out', 'renderer'),
    headless: values.headless === true || env.PROMPTLEDGER_HEADLESS === '1',
  };
}

function parseFlags(command: Command, argv: string[]): Record<string, string | boolean | undefined> {
  const options: ParseArgsConfig['options'] = {
    host: { type: 'string' },
    port: { type: 'string' },
    'data-dir': { type: 'string' },
    'max-body-bytes': { type: 'string' },
    'eval-concurrency': { type: 'string' },
    'keep-days': { type: 'string' },
    'max-gb': { type: 'string' },
    // `start` is the UI (a window or a served page); only `serve` may leave it out.
    ...(command === 'serve' ? { 'no-ui': { type: 'boolean' } } : { headless: { type: 'boolean' } }),
  };
  try {
    // No option is `multiple`, so every value is a string or a boolean.
    return parseArgs({ args: argv, options, allowPositionals: false }).values as Record<string, string | boolean | undefined>;
  } catch (error) {
    // parseArgs names the flag ("Unknown option '--x'", "Option '--port <value>' argument missing").
    throw new ConfigError(`${(error as Error).message.split("\n")[0]} (README.md lists the flags).`);
  }
}

/**
 * The folder that holds package.json: one level above src-server/ when running from source, two
 * above out/main/ when compiled, wherever the package was installed.
 */
export function packageRoot(from: string = import.meta.url): string {
  let dir = dirname(fileURLToPath(from));
  while (!existsSync(join(dir, 'package.json'))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`No package.json above ${fileURLToPath(from)}`);
    dir = parent;
  }
  return dir;
}
