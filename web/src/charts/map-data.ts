import { call } from '../http/client.ts';
import type { Operation } from '../http/capabilities.ts';
import { mapMolecules } from '../chem/chem-client.ts';
import { coordinatesOf } from './map-answer.ts';

/**
 * 2D map coordinates of a set of molecules: from the service's GET /visualize when /openapi.json
 * lists it (docs/operations.md: repeated search_input, visualisation_method=pca; the answer's
 * `coordinates` holds [x, y] per input, null for a SMILES the service could not parse), otherwise
 * a PCA of Morgan fingerprints computed in the browser's RDKit worker.
 */
export interface MapData {
  x: number[];
  y: number[];
  source: string;
}

async function fromService(op: Operation, smiles: string[]) {
  const query = { search_input: smiles, visualisation_method: 'pca', search_type: 'morgan' };
  const body = await call<unknown>(op.path, { method: op.method === 'post' ? 'POST' : 'GET', query });
  return coordinatesOf(body, smiles.length);
}

const pct = (f: number) => `${(100 * f).toFixed(1)}%`;

export async function mapOf(smiles: string[], visualise?: Operation): Promise<MapData> {
  if (visualise) {
    try {
      const c = await fromService(visualise, smiles);
      if (c) {
        const v = c.explained
          ? `; PC1 ${pct(c.explained[0])}, PC2 ${pct(c.explained[1])} of the variance`
          : '';
        return { x: c.x, y: c.y, source: `${visualise.path}: PCA of Morgan fingerprints on the service${v}` };
      }
    } catch {
      /* fall back to the browser's PCA below */
    }
  }
  const m = await mapMolecules(smiles);
  return {
    x: m.x,
    y: m.y,
    source: `PCA of Morgan fingerprints (radius 2, 2048 bits) computed in this browser; PC1 ${pct(m.explained[0])}, PC2 ${pct(m.explained[1])} of the variance`,
  };
}
