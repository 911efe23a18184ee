/**
 * What identifies this installation to clients of the hosted service's on-prem product: a licence
 * key (this service is MIT-licensed and needs none; the key is derived from an installation id
 * created once under the data directory and reveals nothing else) and the SMARTS patterns offered
 * as synthon-search prefilters.
 */
import { createHash, randomUUID } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { functionalGroups } from '../../engine/filters/index.ts';

export interface InstallationDeps {
  /** Where `installation-id` is kept (created on first use). */
  dataDir?: string;
  /** A fixed installation id (configuration or tests) instead of the file. */
  installationId?: string;
}

function installationId(deps: InstallationDeps): string {
  if (deps.installationId) return deps.installationId;
  if (!deps.dataDir) return 'ephemeral-' + randomUUID();
  const file = join(deps.dataDir, 'installation-id');
  try {
    return readFileSync(file, 'utf8').trim();
  } catch {
    const id = randomUUID();
    mkdirSync(dirname(file), { recursive: true });
    try {
      writeFileSync(file, id + '\n', { flag: 'wx' });
      return id;
    } catch {
      // another process created it first: use theirs
      return readFileSync(file, 'utf8').trim();
    }
  }
}

export function createInstallationService(deps: InstallationDeps = {}) {
  let key: string | undefined;
  return {
    smartsPatterns: () => functionalGroups(),
    licenseKey(tier: string) {
      key ??= 'msl_' + createHash('sha256').update(installationId(deps)).digest('hex').slice(0, 32);
      return { license_key: key, license: 'MIT', licensed: true, expires_at: null, account_type: tier };
    },
  };
}

export type InstallationService = ReturnType<typeof createInstallationService>;
