import { existsSync, readFileSync } from 'node:fs';
import { dataFiles } from '../src-server/data-dir';

/**
 * The key the UI signs in with and the menu offers to copy: PROMPTLEDGER_API_KEY (the config's
 * `apiKey`), else the one saved beside the data at first start. Undefined before the first start,
 * when the server generates it. The data folder itself comes from src-server/config.ts.
 */
export function knownApiKey(dataDir: string, apiKey: string | undefined): string | undefined {
  if (apiKey) return apiKey;
  const file = dataFiles(dataDir).apiKey;
  if (!existsSync(file)) return undefined;
  return readFileSync(file, 'utf8').trim() || undefined;
}
