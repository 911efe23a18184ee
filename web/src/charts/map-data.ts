import { call } from '../http/client.ts';
import type { Operation } from '../http/capabilities.ts';
import { mapMolecules } from '../chem/chem-client.ts';

/**
 * 2D map coordinates of a set of molecules: from the service's visualise operation when
 * /openapi.json lists one (sent the SMILES as repeated search_input and visualisation_method=pca;
 * x/y lists, {coordinates: [[x, y]]} or [[x, y]] answers are read), otherwise a PCA of Morgan
 * fingerprints computed in the browser's RDKit worker.
 */
export interface MapData {
  x: number[];
  y: number[];
  source: string;
}

function coordinates(body: any, n: number): { x: number[]; y: number[] } | null {
  const ok = (x: unknown, y: unknown) =>
    Array.isArray(x) && Array.isArray(y) && x.length === n && y.length === n
      ? { x: x.map(Number), y: y.map(Number) }
      : null;
  if (body && typeof body === 'object' && !Array.isArray(body)) {
    const direct = ok(body.x, body.y);
    if (direct) return direct;
    for (const k of ['coordinates', 'coords', 'embedding', 'points'])
      if (Array.isArray(body[k])) return coordinates(body[k], n);
  }
  if (Array.isArray(body) && body.length === n && body.every((p) => Array.isArray(p) && p.length >= 2))
    return { x: body.map((p) => Number(p[0])), y: body.map((p) => Number(p[1])) };
  return null;
}

async function fromService(op: Operation, smiles: string[]) {
  const query = {
    search_input: smiles,
    ...(op.params.includes('visualisation_method') ? { visualisation_method: 'pca' } : {}),
    ...(op.params.includes('search_type') ? { search_type: 'morgan' } : {}),
  };
  const body = await call<unknown>(op.path, { method: op.method === 'post' ? 'POST' : 'GET', query });
  return coordinates(body, smiles.length);
}

export async function mapOf(smiles: string[], visualise?: Operation): Promise<MapData> {
  if (visualise) {
    try {
      const c = await fromService(visualise, smiles);
      if (c) return { ...c, source: `${visualise.path} (PCA on the service)` };
    } catch {
      /* fall back to the browser's PCA below */
    }
  }
  const m = await mapMolecules(smiles);
  const pct = (f: number) => `${(100 * f).toFixed(1)}%`;
  return {
    x: m.x,
    y: m.y,
    source: `PCA of Morgan fingerprints (radius 2, 2048 bits) computed in this browser; PC1 ${pct(m.explained[0])}, PC2 ${pct(m.explained[1])} of the variance`,
  };
}
