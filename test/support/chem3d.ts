import { resolve } from 'node:path';
import { ensureChem3dPython, startChem3dWorker, type Chem3dWorker } from '../../platform/chem3d/process.ts';

/** The project's chem3d venv (installed on first use, as the start command does). */
export function chem3dPython(): string {
  return ensureChem3dPython({ toolsDir: resolve('.tools'), log: (m) => console.log(m) });
}

/** A real Python chem3d worker on the shared Temporal dev server, polling `prefix`'s queues. */
export function startTestChem3d(address: string, prefix: string): Promise<Chem3dWorker> {
  return startChem3dWorker({ python: chem3dPython(), address, namespace: 'default', prefix });
}
