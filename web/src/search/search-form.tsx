import { useEffect, useMemo, useState } from 'preact/hooks';
import type { Capabilities } from '../http/capabilities.ts';
import { SmilesField } from './smiles-field.tsx';
import { SUBSTRUCTURE, type SearchParams } from './rows.ts';

const MODE_LABELS: Record<string, string> = {
  morgan: 'Similarity: Morgan fingerprint (ECFP4)',
  espsim_shape: 'Similarity: 3D shape',
  espsim_electrostatic: 'Similarity: 3D electrostatics',
  synthongpt: 'Synthon space',
  [SUBSTRUCTURE]: 'Substructure',
};
export const modeLabel = (m: string) => MODE_LABELS[m] ?? m.replace(/_/g, ' ');

/** The search types some served database offers, plus substructure when v2 offers it. */
export function modesOf(caps: Capabilities): string[] {
  const offered = new Set(caps.databases.flatMap((d) => d.searchTypes));
  const modes = caps.searchTypes.filter((t) => offered.has(t));
  for (const t of offered) if (!modes.includes(t)) modes.push(t);
  if (caps.databases.some((d) => d.substructure) && caps.hasPath('/api/v2/search_substructure'))
    modes.push(SUBSTRUCTURE);
  return modes;
}

export function SearchForm(props: {
  caps: Capabilities;
  busy: boolean;
  error?: string;
  onSearch: (p: SearchParams) => void;
  onSubmitJob: (p: SearchParams, size: number) => void;
}) {
  const { caps } = props;
  const modes = useMemo(() => modesOf(caps), [caps]);
  const [smiles, setSmiles] = useState('CC(=O)Oc1ccccc1C(=O)O');
  const [mode, setMode] = useState(modes[0] ?? 'morgan');
  const eligible = caps.databases.filter((d) =>
    mode === SUBSTRUCTURE ? d.substructure : d.searchTypes.includes(mode),
  );
  const [dbs, setDbs] = useState<string[]>(() =>
    eligible
      .filter((d) => d.isDefault)
      .map((d) => d.id)
      .slice(0, 1),
  );
  const [quality, setQuality] = useState(caps.searchQualities[0] ?? '');
  const [n, setN] = useState(30);
  const [filters, setFilters] = useState<string[]>([]);
  const [ordering, setOrdering] = useState(caps.orderings[0] ?? '');
  const [smarts, setSmarts] = useState(false);
  const [jobSize, setJobSize] = useState(10_000);
  const legacy = mode !== SUBSTRUCTURE;
  const maxN = legacy ? caps.maxSyncNeighbors : 200;
  const maxDbs = legacy ? caps.maxSyncDatabases : 2;
  useEffect(() => {
    // Keep the selection to databases that serve the chosen search type.
    const ok = dbs.filter((d) => eligible.some((e) => e.id === d));
    if (!ok.length && eligible.length) ok.push((eligible.find((d) => d.isDefault) ?? eligible[0]).id);
    if (ok.join() !== dbs.join()) setDbs(ok);
  }, [mode]);
  const params = (): SearchParams => ({
    smiles: smiles.trim(),
    databases: dbs,
    mode,
    quality: legacy ? quality : undefined,
    n: Math.min(Math.max(1, n), maxN),
    filters: legacy ? filters : [],
    ordering: legacy ? ordering : undefined,
    descriptors: true,
    properties: true,
    smarts: !legacy && smarts,
  });
  const toggle = (list: string[], v: string, on: boolean) =>
    on ? [...list, v] : list.filter((x) => x !== v);
  return (
    <form
      class="search-form"
      aria-label="Search"
      onSubmit={(e) => {
        e.preventDefault();
        props.onSearch(params());
      }}
    >
      <SmilesField value={smiles} onChange={setSmiles} smarts={!legacy && smarts} error={props.error} />
      <div class="field">
        <label for="mode">Search type</label>
        <select id="mode" value={mode} onChange={(e) => setMode(e.currentTarget.value)}>
          {modes.map((m) => (
            <option value={m} key={m}>
              {modeLabel(m)}
            </option>
          ))}
        </select>
      </div>
      {!legacy && (
        <label class="check">
          <input type="checkbox" checked={smarts} onChange={(e) => setSmarts(e.currentTarget.checked)} /> The
          query is SMARTS
        </label>
      )}
      <fieldset>
        <legend>Databases (at most {maxDbs})</legend>
        {eligible.map((d) => (
          <label class="check" key={d.id}>
            <input
              type="checkbox"
              name="db"
              value={d.id}
              checked={dbs.includes(d.id)}
              disabled={!dbs.includes(d.id) && dbs.length >= maxDbs}
              onChange={(e) => setDbs(toggle(dbs, d.id, e.currentTarget.checked))}
            />{' '}
            {d.name} <span class="muted">({d.molecules.toLocaleString('en-US')})</span>
          </label>
        ))}
        {!eligible.length && <p class="hint">No database serves this search type.</p>}
      </fieldset>
      <div class="row two">
        {legacy && caps.searchQualities.length > 0 && (
          <div class="field">
            <label for="quality">Quality</label>
            <select id="quality" value={quality} onChange={(e) => setQuality(e.currentTarget.value)}>
              {caps.searchQualities.map((q) => (
                <option value={q} key={q}>
                  {q.replace(/_/g, ' ')}
                </option>
              ))}
            </select>
          </div>
        )}
        <div class="field">
          <label for="n">Results (at most {maxN})</label>
          <input
            id="n"
            type="number"
            min={1}
            max={maxN}
            value={n}
            onInput={(e) => setN(Number(e.currentTarget.value))}
          />
        </div>
      </div>
      {legacy && caps.filters.length > 0 && (
        <fieldset>
          <legend>Filters</legend>
          <div class="chips">
            {caps.filters.map((f) => (
              <label class="check chip" key={f}>
                <input
                  type="checkbox"
                  checked={filters.includes(f)}
                  onChange={(e) => setFilters(toggle(filters, f, e.currentTarget.checked))}
                />{' '}
                {f}
              </label>
            ))}
          </div>
        </fieldset>
      )}
      {legacy && caps.orderings.length > 0 && (
        <div class="field">
          <label for="ordering">Order by</label>
          <select id="ordering" value={ordering} onChange={(e) => setOrdering(e.currentTarget.value)}>
            {caps.orderings.map((o) => (
              <option value={o} key={o}>
                {o}
              </option>
            ))}
          </select>
        </div>
      )}
      <div class="row">
        <button type="submit" disabled={props.busy || !smiles.trim() || !dbs.length}>
          {props.busy ? 'Searching…' : 'Search'}
        </button>
      </div>
      {legacy && caps.hasPath('/submit_molsearch') && (
        <details class="job-box">
          <summary>Larger search as a job</summary>
          <div class="row">
            <label for="job-size">Neighbours</label>
            <input
              id="job-size"
              type="number"
              min={1}
              max={caps.maxJobNeighbors}
              value={jobSize}
              onInput={(e) => setJobSize(Number(e.currentTarget.value))}
            />
            <button
              type="button"
              class="secondary"
              disabled={props.busy || !smiles.trim() || !dbs.length}
              onClick={() =>
                props.onSubmitJob(params(), Math.min(Math.max(1, jobSize), caps.maxJobNeighbors))
              }
            >
              Submit job
            </button>
          </div>
          <p class="hint">
            Up to {caps.maxJobNeighbors.toLocaleString('en-US')} neighbours, paged and downloadable.
          </p>
        </details>
      )}
    </form>
  );
}
