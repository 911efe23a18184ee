import { readFile, writeFile, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Store } from '../store/index.ts';

/**
 * The development API key of an embedded install: created on first start and kept in
 * data/dev-api-key (mode 0600) on the user's own machine, since the store keeps only its hash.
 */
export async function ensureDevKey(
  store: Store,
  dataDir: string,
): Promise<{ key: string; created: boolean }> {
  const file = join(dataDir, 'dev-api-key');
  try {
    const key = (await readFile(file, 'utf8')).trim();
    const auth = await store.accounts.authenticate(key);
    if (auth.ok) return { key, created: false };
  } catch {
    /* absent or unreadable: make a new one */
  }
  const created = await store.accounts.createApiKey({ user: 'dev', tier: 'enterprise' });
  await mkdir(dataDir, { recursive: true });
  await writeFile(file, created.key + '\n', { mode: 0o600 });
  return { key: created.key, created: true };
}
