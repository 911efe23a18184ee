import { useMemo, useState } from 'preact/hooks';
import { Depiction } from '../chem/depiction.tsx';
import type { Highlight } from '../chem/protocol.ts';
import { fmt } from '../ui/widgets.tsx';
import { ChartsPanel } from '../charts/charts-panel.tsx';
import type { Capabilities } from '../http/capabilities.ts';
import { applyView, type View } from './result-filters.ts';
import { CompareDialog } from './compare-dialog.tsx';
import { labelOf, numericColumns, type ResultRow } from './rows.ts';

const CARD_KEYS = ['molecular_weight', 'clogp', 'topological_surface_area_mapping', 'QED'];

/**
 * A result set as chemists read it: a grid of depictions with ids, databases, scores and key
 * descriptors; sorted and filtered in place; a chosen molecule compared with the query; charts.
 */
export function ResultsView(props: {
  rows: ResultRow[];
  query: string;
  caps: Capabilities;
  /** Highlight the query in each hit (similarity results) unless hits carry their own match. */
  highlightQuery?: boolean;
  toolbarExtra?: preact.ComponentChildren;
}) {
  const columns = useMemo(() => numericColumns(props.rows), [props.rows]);
  const scoreKey = columns.includes('similarity') ? 'similarity' : columns.includes('score') ? 'score' : '';
  const [view, setView] = useState<View>({ sortKey: scoreKey, descending: true, text: '', ranges: [] });
  const [tab, setTab] = useState<'grid' | 'charts'>('grid');
  const [selected, setSelected] = useState<ResultRow | null>(null);
  const [hlQuery, setHlQuery] = useState(props.highlightQuery ?? true);
  const shown = useMemo(() => applyView(props.rows, view), [props.rows, view]);
  const set = (patch: Partial<View>) => setView({ ...view, ...patch });
  const highlightOf = (r: ResultRow): Highlight | undefined =>
    r.highlight ?? (hlQuery && props.query ? { query: props.query } : undefined);
  return (
    <section class="results" aria-label="Results">
      <div class="toolbar" role="group" aria-label="Sort and filter results">
        <span class="count" role="status">
          {shown.length === props.rows.length
            ? `${shown.length} molecules`
            : `${shown.length} of ${props.rows.length} molecules`}
        </span>
        <label for="sort-key">Sort by</label>
        <select id="sort-key" value={view.sortKey} onChange={(e) => set({ sortKey: e.currentTarget.value })}>
          <option value="">service order</option>
          <option value="id">id</option>
          <option value="database">database</option>
          {columns.map((c) => (
            <option value={c} key={c}>
              {labelOf(c)}
            </option>
          ))}
        </select>
        <button
          type="button"
          class="secondary icon"
          onClick={() => set({ descending: !view.descending })}
          aria-label={view.descending ? 'Descending; switch to ascending' : 'Ascending; switch to descending'}
        >
          {view.descending ? '↓' : '↑'}
        </button>
        <label for="filter-text">Find</label>
        <input
          id="filter-text"
          type="search"
          placeholder="id or SMILES"
          value={view.text}
          onInput={(e) => set({ text: e.currentTarget.value })}
        />
        <button
          type="button"
          class="secondary"
          onClick={() => set({ ranges: [...view.ranges, { key: columns[0] ?? '', min: '', max: '' }] })}
          disabled={!columns.length}
        >
          + Range
        </button>
        <span class="spacer" />
        {props.toolbarExtra}
        <div class="segmented" role="group" aria-label="View">
          <button type="button" aria-pressed={tab === 'grid'} onClick={() => setTab('grid')}>
            Structures
          </button>
          <button type="button" aria-pressed={tab === 'charts'} onClick={() => setTab('charts')}>
            Charts
          </button>
        </div>
      </div>
      {view.ranges.length > 0 && (
        <div class="ranges">
          {view.ranges.map((f, i) => {
            const upd = (patch: Partial<typeof f>) =>
              set({ ranges: view.ranges.map((g, j) => (j === i ? { ...g, ...patch } : g)) });
            return (
              <div class="range" role="group" aria-label={`Range filter ${i + 1}`} key={i}>
                <select
                  aria-label="Property"
                  value={f.key}
                  onChange={(e) => upd({ key: e.currentTarget.value })}
                >
                  {columns.map((c) => (
                    <option value={c} key={c}>
                      {labelOf(c)}
                    </option>
                  ))}
                </select>
                <input
                  aria-label="Minimum"
                  type="number"
                  step="any"
                  placeholder="min"
                  value={f.min}
                  onInput={(e) => upd({ min: e.currentTarget.value })}
                />
                <span aria-hidden="true">–</span>
                <input
                  aria-label="Maximum"
                  type="number"
                  step="any"
                  placeholder="max"
                  value={f.max}
                  onInput={(e) => upd({ max: e.currentTarget.value })}
                />
                <button
                  type="button"
                  class="link"
                  aria-label={`Remove range filter ${i + 1}`}
                  onClick={() => set({ ranges: view.ranges.filter((_, j) => j !== i) })}
                >
                  remove
                </button>
              </div>
            );
          })}
        </div>
      )}
      {tab === 'grid' ? (
        <>
          {!props.rows.some((r) => r.highlight) && props.query && (
            <label class="check small">
              <input
                type="checkbox"
                checked={hlQuery}
                onChange={(e) => setHlQuery(e.currentTarget.checked)}
              />{' '}
              Highlight the query where a hit contains it
            </label>
          )}
          <ul class="grid" aria-label="Result structures">
            {shown.map((r) => (
              <li key={r.key}>
                <button
                  type="button"
                  class="card"
                  onClick={() => setSelected(r)}
                  data-id={r.id}
                  data-score={r.score ?? undefined}
                  aria-label={`${r.id}, ${r.database}${r.score !== null ? `, score ${fmt(r.score)}` : ''}: compare with the query`}
                >
                  <Depiction
                    smiles={r.smiles}
                    width={200}
                    height={140}
                    highlight={highlightOf(r)}
                    label={`Structure of ${r.id}`}
                  />
                  <span class="card-id">{r.id}</span>
                  <span class="card-db">{r.database}</span>
                  <span class="card-values">
                    {scoreKey && <span class="score">{fmt(r.values[scoreKey])}</span>}
                    {CARD_KEYS.filter((k) => typeof r.values[k] === 'number').map((k) => (
                      <span key={k}>
                        {labelOf(k)} {fmt(r.values[k])}
                      </span>
                    ))}
                  </span>
                </button>
              </li>
            ))}
          </ul>
        </>
      ) : (
        <ChartsPanel rows={shown} columns={columns} caps={props.caps} onSelect={setSelected} />
      )}
      {selected && (
        <CompareDialog
          query={props.query}
          row={selected}
          onClose={() => setSelected(null)}
          highlight={selected.highlight}
        />
      )}
    </section>
  );
}
