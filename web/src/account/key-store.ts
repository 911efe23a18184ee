/**
 * The API key lives in this browser's localStorage only: pasted once on the Account page, sent as
 * the X-API-Key header on every request, never put in a URL, a page address or a log line.
 */
const STORAGE_KEY = 'molsearch.apiKey';
type Listener = (key: string | null) => void;
const listeners = new Set<Listener>();

export function getApiKey(): string | null {
  try {
    return localStorage.getItem(STORAGE_KEY);
  } catch {
    return null; // storage disabled (private mode with a strict policy)
  }
}

export function setApiKey(key: string | null): void {
  const clean = key?.trim() || null;
  if (clean) localStorage.setItem(STORAGE_KEY, clean);
  else localStorage.removeItem(STORAGE_KEY);
  for (const l of listeners) l(clean);
}

/** Calls `listener` when the key changes (in this tab or another). Returns the unsubscribe function. */
export function onApiKeyChange(listener: Listener): () => void {
  listeners.add(listener);
  const onStorage = (e: StorageEvent) => e.key === STORAGE_KEY && listener(e.newValue);
  addEventListener('storage', onStorage);
  return () => {
    listeners.delete(listener);
    removeEventListener('storage', onStorage);
  };
}
