/**
 * Legacy synthon-space jobs (POST /submit_synthongpt_job): every parameter is judged now (the query
 * as SMILES, or SMILES/SMARTS in structure modes; the SMARTS prefilter; the database); then, while
 * no synthon database is installed, a clear capability_unavailable naming db_name.
 */
import { DomainError, invalidSmiles, validationError } from '../../platform/errors.ts';
import { getRDKit, parseMolecule } from '../../engine/chem/index.ts';
import type { SearchService } from './search-service.ts';

export interface SynthonJobRequest {
  search_input: string;
  db_name?: string;
  /** similarity, substructure or superstructure (the route's schema checked it). */
  search_mode: string;
  smarts_prefilter_pattern_smarts: string;
}

export function createSynthonJobService(deps: { search: SearchService }) {
  const { search } = deps;
  return {
    /** Validates a synthon job; until a synthon database exists, every valid job is capability_unavailable. */
    async submit(q: SynthonJobRequest): Promise<never> {
      const rd = await getRDKit();
      const structureMode = q.search_mode !== 'similarity';
      if (!q.search_input.trim()) throw validationError(['query', 'search_input'], 'empty SMILES');
      if (structureMode) {
        const qmol = rd.get_qmol(q.search_input.trim());
        const ok = !!qmol && qmol.is_valid();
        qmol?.delete();
        if (!ok) throw invalidSmiles(['query', 'search_input'], q.search_input, 'SMILES/SMARTS');
      } else if ('error' in parseMolecule(rd, q.search_input))
        throw invalidSmiles(['query', 'search_input'], q.search_input);
      if (q.smarts_prefilter_pattern_smarts.trim()) {
        const p = rd.get_qmol(q.smarts_prefilter_pattern_smarts.trim());
        const ok = !!p && p.is_valid();
        p?.delete();
        if (!ok)
          throw invalidSmiles(
            ['query', 'smarts_prefilter_pattern_smarts'],
            q.smarts_prefilter_pattern_smarts,
            'SMARTS',
          );
      }
      const synthonDbs = search.databases().filter((d) => d.kind === 'synthon');
      if (q.db_name && synthonDbs.length && !synthonDbs.some((d) => d.id === q.db_name)) {
        throw validationError(
          ['query', 'db_name'],
          `unknown synthon database ${JSON.stringify(q.db_name)}; available: ${synthonDbs.map((d) => d.id).join(', ')}`,
        );
      }
      throw new DomainError(
        'capability_unavailable',
        'synthon databases are not available on this server yet',
        {
          issues: [
            {
              loc: ['query', 'db_name'],
              msg: `synthon-space jobs need a synthon database and none is installed on this server (available databases: ${
                search
                  .databases()
                  .map((d) => d.id)
                  .join(', ') || 'none'
              }); use /submit_molsearch for enumerated catalogs`,
              type: 'value_error.unavailable',
            },
          ],
        },
      );
    },
  };
}

export type SynthonJobService = ReturnType<typeof createSynthonJobService>;
