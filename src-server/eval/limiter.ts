/** A counting semaphore whose waiters can give up through an AbortSignal. */
export interface Limiter {
  run<T>(work: () => Promise<T>, signal?: AbortSignal): Promise<T>;
  readonly active: number;
  readonly capacity: number;
}

export function createLimiter(capacity: number): Limiter {
  let active = 0;
  const waiting: Array<{ start: () => void; cancel: (reason: unknown) => void }> = [];

  const release = () => {
    active--;
    const next = waiting.shift();
    if (next) {
      active++;
      next.start();
    }
  };

  const acquire = (signal?: AbortSignal) =>
    new Promise<void>((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason);
      if (active < capacity) {
        active++;
        return resolve();
      }
      const entry = {
        start: () => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        },
        cancel: reject,
      };
      const onAbort = () => {
        const at = waiting.indexOf(entry);
        if (at >= 0) waiting.splice(at, 1);
        reject(signal!.reason);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      waiting.push(entry);
    });

  return {
    get active() {
      return active;
    },
    capacity,
    async run(work, signal) {
      await acquire(signal);
      try {
        return await work();
      } finally {
        release();
      }
    },
  };
}
