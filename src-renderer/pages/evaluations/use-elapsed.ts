import { useEffect, useState } from 'react';

/** Milliseconds since `since`, ticking every second while `running`; null without a start. */
export function useElapsed(since: string | undefined, running: boolean): number | null {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (!running) return;
    setNow(Date.now());
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, [running]);
  if (!since) return null;
  return Math.max(0, now - Date.parse(since));
}
