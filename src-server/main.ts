import { parseArgs } from 'node:util';
import { defaultDataDir, dataFiles } from './data-dir';
import { createServer, DEFAULT_BODY_LIMIT } from './server';

/**
 * Standalone server: `promptledger serve [--host H] [--port P] [--data-dir D]`.
 * Flags win over PROMPTLEDGER_HOST / _PORT / _DATA_DIR; port 0 picks a free port.
 */
export async function main(argv = process.argv.slice(2), env = process.env): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: {
      host: { type: 'string' },
      port: { type: 'string' },
      'data-dir': { type: 'string' },
      'max-body-bytes': { type: 'string' },
    },
    allowPositionals: true,
  });
  const host = values.host ?? env.PROMPTLEDGER_HOST ?? '127.0.0.1';
  const portText = values.port ?? env.PROMPTLEDGER_PORT ?? '8420';
  const port = Number(portText);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new Error(`Invalid port "${portText}": use a number from 0 to 65535 (0 picks a free port).`);
  }
  const bodyLimitBytes = Number(values['max-body-bytes'] ?? env.PROMPTLEDGER_MAX_BODY_BYTES ?? DEFAULT_BODY_LIMIT);
  const dataDir = values['data-dir'] ?? env.PROMPTLEDGER_DATA_DIR ?? defaultDataDir(env);

  const server = await createServer({
    dataDir,
    host,
    port,
    apiKey: env.PROMPTLEDGER_API_KEY || undefined,
    bodyLimitBytes,
    log: {
      info: (message) => console.error(message),
      error: (message, error) => console.error(message, error),
    },
  });
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.error(`${signal}: closing promptledger…`);
    server.close().then(
      () => process.exit(0),
      (error: unknown) => {
        console.error('Shutdown failed', error);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
  // Only now announce readiness: a supervisor may signal us the moment it reads this line.
  if (server.generatedKey) {
    console.log(`API key for the default workspace (shown once; saved to ${dataFiles(dataDir).apiKey}): ${server.generatedKey}`);
  }
  console.log(`promptledger listening on ${server.url}`);
}
