/** Whether the databases a 3D request names are 3D-ready, with the build's progress when not. */
import { validationError } from '../../platform/errors.ts';
import type { ThreeDStatusService } from './three-d-status.ts';

/** 4xx naming `loc` (default query.db_names) unless every database is 3D-ready (with its progress). */
export function createCheckReady(threeD: ThreeDStatusService) {
  return async function checkReady(dbNames: string[], loc: (string | number)[] = ['query', 'db_names']) {
    for (const name of dbNames) {
      const s = await threeD.status(name);
      if (!s || s.status === 'ready') continue; // unknown names: the usual check names them
      const p = s.progress;
      // The listing's numbers (the same ThreeDProgress), so a client sees one story.
      const eta = p?.eta_seconds ? `, about ${Math.max(1, Math.ceil(p.eta_seconds / 60))} min to go` : '';
      const when =
        s.status === 'building' && p
          ? `its 3D stage is running: ${p.percent}% (${p.molecules_done} of ${p.molecules_total} molecules: ${p.embedded} embedded, ${p.rejected} rejected)${eta}; retry when it completes (GET /available_databases_full shows the progress)`
          : 'its 3D stage has not been run (molsearch start runs it for bundled catalogs; see docs/chem3d.md)';
      throw validationError(loc, `database ${name} is not 3D-ready yet: ${when}`, 'value_error.not_ready');
    }
  };
}
