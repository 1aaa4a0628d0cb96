#!/usr/bin/env node
// Entry point for `npm start`, `npm run serve` and the `promptledger` bin. The server is written
// in TypeScript and runs through tsx, so there is no separate compile step to forget.
import { register } from 'tsx/esm/api';

register();
const [command = 'serve', ...args] = process.argv.slice(2);
if (command === 'serve' || command === 'start') {
  const { main } = await import('../src-server/main.ts');
  await main(args).catch((error) => {
    console.error(`promptledger: ${error instanceof Error ? error.message : error}`);
    process.exit(1);
  });
} else {
  console.error(`Unknown command "${command}". Use: promptledger serve [--host H] [--port P] [--data-dir DIR]`);
  process.exit(2);
}
