#!/usr/bin/env node
// Entry point for `npm start`, `npm run serve` and the `promptledger` bin. It runs the compiled
// server in out/main/ (build/build.mjs): no TypeScript loader at run time. In a checkout, where
// the sources sit beside out/, it first rebuilds whatever changed since the last build (a stamp
// per output folder, so an unchanged tree costs a few file stats); an installed package ships
// only the compiled files.
import { existsSync } from 'node:fs';

const USAGE =
  'Use: promptledger serve [--host H] [--port P] [--data-dir DIR] [--max-body-bytes N] [--keep-days N] [--max-gb N] [--no-ui]' +
  ' | promptledger start [--headless] [--port P] [--data-dir DIR]';
const [command = 'serve', ...args] = process.argv.slice(2);
const fail = (error) => {
  console.error(`promptledger: ${error instanceof Error ? error.message : error}`);
  process.exit(1);
};
if (command !== 'serve' && command !== 'start') {
  console.error(`Unknown command "${command}". ${USAGE}`);
  process.exit(2);
}
try {
  if (existsSync(new URL('../src-server/main.ts', import.meta.url))) {
    const { ensureBuilt } = await import('../build/build.mjs');
    await ensureBuilt({ ui: command === 'start' || !args.includes('--no-ui'), log: (m) => console.error(m) });
  }
  // A bad flag or variable stops here, before the server's code is loaded.
  const { loadConfig } = await import('../out/main/config.js');
  loadConfig(command, args);
  if (command === 'serve') {
    const { main } = await import('../out/main/serve.js');
    await main(args);
  } else {
    // The desktop window when Electron can run here, otherwise the same UI served headless.
    const { runStart } = await import('../out/main/start.js');
    await runStart(args);
  }
} catch (error) {
  fail(error);
}
