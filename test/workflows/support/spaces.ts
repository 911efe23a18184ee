/** Builds bundled synthon spaces (from catalogs/spaces/sources) into DATA_DIR/spaces for job tests. */
import { join } from 'node:path';
import { buildSpace } from '../../../engine/synthons/build-space.ts';

const SOURCES = new URL('../../../catalogs/spaces/sources/', import.meta.url).pathname;
const SOURCE_OF: Record<string, string> = {
  idorsia_toy_space: 'idorsia_toy_space_a.txt',
  rdkit_urea_space: 'urea_space.txt',
  rdkit_amide_space: 'amide_space.txt',
  chemspace_freedom_sample: 'Syntons_5567.csv',
};

/** Builds the named spaces (ids of catalogs/spaces/bundled.json, so the stack lists them). */
export async function buildTestSpaces(
  dataDir: string,
  ids = ['idorsia_toy_space', 'rdkit_urea_space', 'rdkit_amide_space'],
): Promise<void> {
  for (const id of ids)
    await buildSpace({ input: join(SOURCES, SOURCE_OF[id]), out: join(dataDir, 'spaces', id), id, name: id });
}
