// `promptledger serve` from source through the tsx loader, the way bin/promptledger.js ran it
// before the runtime was compiled: bench/idle.ts's baseline. Run with `node --import tsx`.
import { main } from '../../src-server/main';

await main(process.argv.slice(2));
