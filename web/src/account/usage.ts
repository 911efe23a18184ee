import { useEffect, useState } from 'preact/hooks';
import { call } from '../http/client.ts';
import { getApiKey } from './key-store.ts';

/**
 * Daily usage from GET /rate_limit_status. Reading it counts as a request too, so it is read on
 * demand (start, key change, Account page) and once after a burst of work, never on a timer.
 */
export interface Usage {
  limit: number;
  used: number;
  remaining: number;
  reset_at: string;
  seconds_to_reset: number;
  account_type: string;
}

let current: Usage | null = null;
const listeners = new Set<(u: Usage | null) => void>();
let timer: ReturnType<typeof setTimeout> | undefined;

export async function refreshUsage(): Promise<Usage | null> {
  if (!getApiKey()) current = null;
  else current = await call<Usage>('/rate_limit_status');
  for (const l of listeners) l(current);
  return current;
}

/** Refreshes the usage shortly after the last of a burst of requests. */
export function usageChanged(): void {
  clearTimeout(timer);
  timer = setTimeout(() => void refreshUsage().catch(() => {}), 2000);
}

export function useUsage(): Usage | null {
  const [u, setU] = useState(current);
  useEffect(() => {
    listeners.add(setU);
    return () => void listeners.delete(setU);
  }, []);
  return u;
}
