/**
 * The SDF of a 3D job result: first one "Query Molecule" record per query conformer the exported
 * hits are aligned onto, then each hit's best conformer in the frame of that query conformer
 * (coordinates after alignment), so a viewer overlays them. Mol blocks are made one at a time as
 * the writer pulls rows.
 */
import { getRDKit } from '../engine/chem/index.ts';
import { molblock3d } from '../engine/chem/molblock-3d.ts';
import {
  METADATA_QUERY_3D,
  type ExportColumn,
  type ExportValue,
  type JobResult,
  type Query3dMetadata,
} from '../engine/export/index.ts';

/** The id of the query's records, as pages name the synthetic query row (clients skip it). */
export const QUERY_RECORD_ID = 'Query Molecule';

export interface Sdf3d {
  /** The query records' rows for the given columns. */
  queryRows(columns: ExportColumn[], jobName: string): ExportValue[][];
  /** Mol block of the n-th record: query conformers, then the hits of `indices` in order. */
  molblockAt(n: number): string | undefined;
}

/** Query and hit records of a 3D result decoded with its conformers (`decodeJobResult(…, {conformers})`). */
export async function sdf3dRecords(result: JobResult, indices: Int32Array): Promise<Sdf3d> {
  const t = result.threeD;
  if (!t?.elements || !t.coords) throw new Error('3D result decoded without its conformers');
  const { elements, coords } = t;
  const rd = await getRDKit();
  const meta = result.metadata[METADATA_QUERY_3D];
  const q = meta ? (JSON.parse(meta) as Query3dMetadata) : undefined;
  const confs = q ? [...new Set(Array.from(indices, (i) => t.queryConf[i]))].sort((a, b) => a - b) : [];
  const qElements = q ? new Uint8Array(Buffer.from(q.elements, 'base64')) : new Uint8Array();
  const qCoords = q
    ? new Float32Array(new Uint8Array(Buffer.from(q.coords, 'base64')).buffer)
    : new Float32Array();
  return {
    queryRows(columns, jobName) {
      return confs.map((c) =>
        columns.map((col) => {
          switch (col.name) {
            case 'smiles':
            case 'query_smiles':
              return q!.smiles;
            case 'id':
              return QUERY_RECORD_ID;
            case 'query_conformer':
              return c;
            case 'job_name':
              return jobName;
            default:
              return null;
          }
        }),
      );
    },
    molblockAt(n) {
      if (n < confs.length) {
        const a = q!.atomCount * 3;
        return molblock3d(rd, q!.smiles, qElements, qCoords.subarray(confs[n] * a, (confs[n] + 1) * a));
      }
      const i = indices[n - confs.length];
      if (i === undefined) return undefined;
      return molblock3d(rd, result.smiles[i], elements[i], coords[i]);
    },
  };
}
