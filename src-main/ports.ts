import { DEFAULT_PORT } from '../src-server/config';


/** How many ports after the preferred one are tried before giving up. */
export const PORT_ATTEMPTS = 20;

const inUse = (error: unknown) => (error as NodeJS.ErrnoException | null)?.code === 'EADDRINUSE';

/**
 * Starts something that listens (the server) on the preferred port, or on the next free one when
 * it is taken (a second copy of the server, another tool). Trying to listen is the only race-free
 * way to learn that a port is free; any error other than "in use" is the caller's to see.
 */
export async function listenOnFreePort<T>(
  start: (port: number) => Promise<T>,
  preferred = DEFAULT_PORT,
  attempts = PORT_ATTEMPTS,
): Promise<T> {
  if (preferred === 0) return start(0);
  for (let i = 0; i < attempts; i++) {
    const port = preferred + i;
    if (port > 65535) break;
    try {
      return await start(port);
    } catch (error) {
      if (!inUse(error)) throw error;
    }
  }
  throw new Error(`Ports ${preferred}–${Math.min(65535, preferred + attempts - 1)} are all in use; set PROMPTLEDGER_PORT to a free one.`);
}
