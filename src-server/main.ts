import { boundHeapGrowth } from './bound-heap-growth';
import { loadConfig } from './config';
import { dataFiles } from './data-dir';
import type { RunningServer } from './server';
import { startIngestThread } from './store/ingest';

/**
 * Standalone server: `promptledger serve [--host H] [--port P] [--data-dir D] [--no-ui] …`
 * (src-server/config.ts lists every flag and its environment variable; port 0 picks a free port).
 */
export async function main(argv = process.argv.slice(2), env = process.env): Promise<void> {
  const config = loadConfig('serve', argv, env);
  // The ingest thread boots while this one loads the server's code (imported here, not at the top
  // of the file, so that it loads after the thread has started) and opens the data; it opens the
  // database only once createServer has locked and migrated it. Started after the server had
  // opened, its boot was the last ~100 ms before the ready line, with the main thread waiting.
  const ingestThread = startIngestThread(dataFiles(config.dataDir).database);
  let server: RunningServer;
  try {
    const { createServer } = await import('./server');
    server = await createServer({
      dataDir: config.dataDir,
      host: config.host,
      port: config.port,
      apiKey: config.apiKey,
      bodyLimitBytes: config.maxBodyBytes,
      evalConcurrency: config.evalConcurrency,
      retention: { keep_days: config.keepDays, max_bytes: config.maxBytes },
      staticDir: config.staticDir,
      ingestThread,
      log: {
        info: (message) => console.error(message),
        error: (message, error) => (error === undefined ? console.error(message) : console.error(message, error)),
      },
    });
  } catch (error) {
    // Still waiting to open, it would keep the process alive (another server holds the data dir).
    await ingestThread.worker.terminate();
    throw error;
  }
  // A process-wide choice, so made here and not in createServer(), which tests run in their own
  // process; and once the server listens: set before createServer(), it cost ~50 ms to the ready
  // line (measured, 9 starts each; V8 flags changed while code is still being compiled).
  boundHeapGrowth();
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
    console.log(`API key for the default workspace (shown once; saved to ${dataFiles(config.dataDir).apiKey}): ${server.generatedKey}`);
  }
  console.log(`promptledger listening on ${server.url}`);
  if (config.staticDir) console.log(`Open the UI: ${server.url}/ (sign in with the API key${config.apiKey ? '' : ` in ${dataFiles(config.dataDir).apiKey}`})`);
}
