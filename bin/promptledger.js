#!/usr/bin/env node
// Entry point for `npm start`, `npm run serve` and the `promptledger` bin. The server is written
// in TypeScript and runs through tsx, so there is no separate compile step to forget.
import { register } from 'tsx/esm/api';

register();
const [command = 'serve', ...args] = process.argv.slice(2);
const fail = (error) => {
  console.error(`promptledger: ${error instanceof Error ? error.message : error}`);
  process.exit(1);
};
if (command === 'serve') {
  const { main } = await import('../src-server/main.ts');
  await main(args).catch(fail);
} else if (command === 'start') {
  // The desktop window when Electron can run here, otherwise the same UI served headless.
  const { runStart } = await import('../src-main/start.ts');
  await runStart(args).catch(fail);
} else {
  console.error(
    `Unknown command "${command}". Use: promptledger serve [--host H] [--port P] [--data-dir DIR]` +
      ' | promptledger start [--headless] [--port P] [--data-dir DIR]',
  );
  process.exit(2);
}
