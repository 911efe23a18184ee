/**
 * The embedding operations for the 3D search types (`espsim_shape`, `espsim_electrostatic`;
 * docs/operations.md, "3D embeddings"). A molecule's 3D embedding is the first stage of the 3D
 * search: its conformers (chem3d worker, the catalog's recipe: ETKDGv3, up to 10, seed 42) each
 * described by 60 USRCAT-style floats (engine/shape/descriptors.ts). Both 3D types share it: the
 * first stage is the same for shape and ESP searches, only the exact stage differs. Searching by
 * such a vector runs that first stage over 3D-ready catalogs; no worker is needed for it.
 */
import { validationError } from '../../platform/errors.ts';
import type { ObjectStore } from '../../platform/object-store/index.ts';
import { DESCRIPTOR_LENGTH } from '../../engine/shape/index.ts';
import { ANALYSIS_LIMITS } from '../../engine/analysis/index.ts';
import { csvCell, npyFloat32, outputPath, readInputSmiles } from './analysis-files.ts';
import { userFileKey } from './jobs-files.ts';
import { THREE_D_TYPES, type Embedded3d, type ShapeSearchService } from './shape-search.ts';

/** Floats per conformer of a 3D embedding. */
export const THREE_D_DIMENSIONS = DESCRIPTOR_LENGTH;
/** Conformers a given 3D embedding may carry (the catalog recipe embeds at most 10). */
export const MAX_EMBEDDING_CONFORMERS = 10;

export function isThreeDType(searchType: string): boolean {
  return (THREE_D_TYPES as readonly string[]).includes(searchType);
}

function onlyDense(format: string): void {
  if (format !== 'dense')
    throw validationError(
      ['query', 'format'],
      `3D embeddings are dense (60 numbers per conformer); format ${JSON.stringify(format)} is not offered`,
      'value_error.invalid_parameter',
    );
}

function checkCount(field: string, n: number): void {
  if (n > ANALYSIS_LIMITS.sync3dMolecules)
    throw validationError(
      ['query', field],
      `at most ${ANALYSIS_LIMITS.sync3dMolecules} molecules per 3D embedding request (each is embedded in 3D, ~0.3 s), got ${n}`,
      'value_error.too_large',
    );
}

/** Per conformer, the 60 descriptor floats as numbers. */
function conformerRows(d: Float32Array): number[][] {
  return Array.from({ length: d.length / DESCRIPTOR_LENGTH }, (_, c) =>
    Array.from(d.subarray(c * DESCRIPTOR_LENGTH, (c + 1) * DESCRIPTOR_LENGTH)),
  );
}

export function createAnalysis3d(deps: { shape?: ShapeSearchService; objects: ObjectStore }) {
  const shape = (): ShapeSearchService => {
    if (!deps.shape)
      throw validationError(
        ['query', 'search_type'],
        '3D search types are not configured on this deployment (no 3D search); allowed: morgan',
        'value_error.unknown_metric',
      );
    return deps.shape;
  };
  const embed = (smiles: string[], field: string): Promise<Embedded3d[]> => {
    checkCount(field, smiles.length);
    return shape().embedMany(smiles, ['query', field]);
  };
  const errorsOf = (rows: Embedded3d[]) => rows.map((r) => (r.ok ? null : r.reason));

  return {
    /** Each molecule's conformers × 60 first-stage floats (null and its reason when not embeddable). */
    async embeddings(smiles: string[], format: string) {
      onlyDense(format);
      const rows = await embed(smiles, 'search_input');
      return {
        dimensions: THREE_D_DIMENSIONS,
        canonical_smiles: rows.map((r, i) => (r.ok ? smiles[i] : null)),
        conformers: rows.map((r) => (r.ok ? r.molecule.confCount : 0)),
        embeddings: rows.map((r) => (r.ok ? conformerRows(r.descriptors) : null)),
        errors: errorsOf(rows),
      };
    },

    /** The mean over molecules of each molecule's mean conformer vector (60 floats). */
    async centroid(smiles: string[], format: string) {
      onlyDense(format);
      const rows = await embed(smiles, 'search_input');
      const ok = rows.filter((r) => r.ok);
      if (ok.length === 0)
        throw validationError(
          ['query', 'search_input'],
          'none of the SMILES could be embedded in 3D',
          'value_error.empty_input',
        );
      const sum = new Float64Array(THREE_D_DIMENSIONS);
      for (const r of ok) {
        const confs = r.descriptors.length / THREE_D_DIMENSIONS;
        r.descriptors.forEach((v, k) => (sum[k % THREE_D_DIMENSIONS] += v / confs));
      }
      return {
        dimensions: THREE_D_DIMENSIONS,
        n_molecules: ok.length,
        centroid: Array.from(sum, (v) => v / ok.length),
        errors: errorsOf(rows),
      };
    },

    /**
     * An uploaded file's 3D embeddings: `<stem>_<type>_embeddings.npy` (every conformer's 60 floats,
     * molecules in file order) and `_index.csv` (row, smiles, first_conformer, conformers, error).
     */
    async embeddingsFile(
      accountId: string,
      req: { inputFile: string; destFolder: string; smilesCol: string; searchType: string },
    ) {
      const base = outputPath(req.destFolder, req.inputFile, `_${req.searchType}_embeddings`);
      const { input, smiles } = await readInputSmiles(deps.objects, accountId, req.inputFile, req.smilesCol);
      const rows = await embed(smiles, 'input_file');
      const total = rows.reduce((n, r) => n + (r.ok ? r.molecule.confCount : 0), 0);
      const values = new Float32Array(total * THREE_D_DIMENSIONS);
      const lines = ['row,smiles,first_conformer,conformers,error'];
      let at = 0;
      rows.forEach((r, i) => {
        const confs = r.ok ? r.molecule.confCount : 0;
        if (r.ok) values.set(r.descriptors, at * THREE_D_DIMENSIONS);
        lines.push([i, smiles[i], r.ok ? at : '', confs, r.ok ? null : r.reason].map(csvCell).join(','));
        at += confs;
      });
      const npy = `${base}.npy`;
      const index = `${base}_index.csv`;
      await deps.objects.put(userFileKey(accountId, npy), npyFloat32(total, THREE_D_DIMENSIONS, values));
      await deps.objects.put(
        userFileKey(accountId, index),
        lines.join('\r\n') + '\r\n',
        'text/csv; charset=utf-8',
      );
      return {
        status: 'SUCCESS',
        input_file: input,
        dest_folder: req.destFolder,
        search_type: req.searchType,
        embedding_type: 'conformers',
        dimensions: THREE_D_DIMENSIONS,
        count: smiles.length,
        conformers: total,
        errors: rows.filter((r) => !r.ok).length,
        output_files: [npy, index],
      };
    },
  };
}

/** A given 3D embedding as descriptors: a multiple of 60 finite numbers, at most 10 conformers. */
export function threeDVector(values: number[]): Float32Array {
  const n = values.length;
  if (n === 0 || n % THREE_D_DIMENSIONS !== 0 || n / THREE_D_DIMENSIONS > MAX_EMBEDDING_CONFORMERS)
    throw validationError(
      ['query', 'embedding'],
      `a 3D embedding is ${THREE_D_DIMENSIONS} numbers per conformer, 1 to ${MAX_EMBEDDING_CONFORMERS} conformers; got ${n} numbers`,
      'value_error.dimension_mismatch',
    );
  return Float32Array.from(values);
}

export type Analysis3d = ReturnType<typeof createAnalysis3d>;
