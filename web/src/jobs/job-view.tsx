import { useEffect, useState } from 'preact/hooks';
import { useCapabilities } from '../search/search-page.tsx';
import { ResultsView } from '../search/results-view.tsx';
import { labelOf, type ResultRow } from '../search/rows.ts';
import { usageChanged } from '../account/usage.ts';
import { href } from '../ui/router.ts';
import { ErrorMessage, fmt, Progress, Spinner, when } from '../ui/widgets.tsx';
import { DownloadsPanel } from './downloads-panel.tsx';
import {
  jobInfo,
  jobPage,
  JOB_TERMINAL,
  pollUntil,
  revokeJob,
  type JobInfo,
  type PropRanges,
} from './job-api.ts';

const PAGE_SIZES = [30, 100, 500, 1000];

/** Server-side property ranges: they set in_prop_range on every row (and apply to downloads). */
function RangesEditor(props: { columns: string[]; ranges: PropRanges; onApply: (r: PropRanges) => void }) {
  const [draft, setDraft] = useState(
    Object.entries(props.ranges).map(([key, v]) => ({ key, min: v.min ?? '', max: v.max ?? '' })),
  );
  const apply = (e: Event) => {
    e.preventDefault();
    const out: PropRanges = {};
    for (const d of draft)
      if (d.key)
        out[d.key] = {
          ...(d.min !== '' ? { min: Number(d.min) } : {}),
          ...(d.max !== '' ? { max: Number(d.max) } : {}),
        };
    props.onApply(out);
  };
  return (
    <form class="ranges" onSubmit={apply} aria-label="Property ranges">
      {draft.map((d, i) => {
        const upd = (p: Partial<typeof d>) => setDraft(draft.map((x, j) => (j === i ? { ...x, ...p } : x)));
        return (
          <div class="range" role="group" aria-label={`Property range ${i + 1}`} key={i}>
            <select aria-label="Property" value={d.key} onChange={(e) => upd({ key: e.currentTarget.value })}>
              {props.columns.map((c) => (
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
              value={d.min}
              onInput={(e) => upd({ min: e.currentTarget.value })}
            />
            <span aria-hidden="true">–</span>
            <input
              aria-label="Maximum"
              type="number"
              step="any"
              placeholder="max"
              value={d.max}
              onInput={(e) => upd({ max: e.currentTarget.value })}
            />
            <button type="button" class="link" onClick={() => setDraft(draft.filter((_, j) => j !== i))}>
              remove
            </button>
          </div>
        );
      })}
      <div class="row">
        <button
          type="button"
          class="secondary"
          onClick={() => setDraft([...draft, { key: props.columns[0] ?? '', min: '', max: '' }])}
        >
          + Property range
        </button>
        <button type="submit" class="secondary">
          Apply ranges
        </button>
      </div>
    </form>
  );
}

export function JobView(props: { name: string }) {
  const { caps } = useCapabilities();
  const [info, setInfo] = useState<JobInfo | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [page, setPage] = useState(0);
  const [size, setSize] = useState(100);
  const [simTh, setSimTh] = useState(0);
  const [ranges, setRanges] = useState<PropRanges>({});
  const [onlyInRange, setOnlyInRange] = useState(false);
  const [data, setData] = useState<{ rows: ResultRow[]; columns: string[] } | null>(null);
  const [loading, setLoading] = useState(false);
  useEffect(() => {
    const ctl = new AbortController();
    pollUntil(
      () => jobInfo(props.name),
      (j) => JOB_TERMINAL.includes(j.status),
      setInfo,
      ctl.signal,
      1000,
    )
      .catch(setError)
      .finally(usageChanged);
    return () => ctl.abort();
  }, [props.name]);
  const done = info?.status === 'SUCCESS';
  useEffect(() => {
    if (!done) return;
    let live = true;
    setLoading(true);
    jobPage(props.name, { page, size, simTh, ranges })
      .then(
        (d) => live && (setData(d), setError(null)),
        (e) => live && setError(e),
      )
      .finally(() => live && setLoading(false));
    return () => {
      live = false;
    };
  }, [done, page, size, simTh, ranges]);
  const rows = data ? (onlyInRange ? data.rows.filter((r) => r.flags?.in_prop_range) : data.rows) : [];
  const query = String(info?.parameters.canonical_smiles ?? info?.parameters.search_input ?? '');
  const total = info?.rows ?? 0;
  const pages = Math.max(1, Math.ceil(Math.min(total, 100_000) / size));
  return (
    <section class="page" aria-labelledby="job-title">
      <p class="crumbs">
        <a href={href('jobs')}>Jobs</a> ›
      </p>
      <h2 id="job-title">
        Job <code>{props.name}</code>
      </h2>
      <ErrorMessage error={error} />
      {!info && !error && <Spinner label="Loading the job…" />}
      {info && (
        <div class="job-head">
          <dl class="facts inline">
            <dt>Status</dt>
            <dd>
              <span class={`badge ${info.status.toLowerCase()}`} data-testid="job-status">
                {info.status}
              </span>
            </dd>
            <dt>Query</dt>
            <dd>
              <code>{query}</code>
            </dd>
            <dt>Databases</dt>
            <dd>{((info.parameters.db_names as string[]) ?? []).join(', ')}</dd>
            <dt>Neighbours</dt>
            <dd>{fmt(info.parameters.n_neighbors)}</dd>
            <dt>Submitted</dt>
            <dd>{when(info.created_at)}</dd>
            {info.rows !== null && (
              <>
                <dt>Rows</dt>
                <dd>{fmt(info.rows)}</dd>
              </>
            )}
          </dl>
          {!JOB_TERMINAL.includes(info.status) && (
            <div class="row">
              <Progress
                value={info.progress.shards_done ?? 0}
                max={info.progress.shards_total ?? 0}
                label="Shards scanned"
              />
              <button type="button" class="secondary" onClick={() => revokeJob(props.name).catch(setError)}>
                Revoke
              </button>
            </div>
          )}
          {info.error && <p class="message error">{info.error}</p>}
        </div>
      )}
      {done && caps && (
        <div class="job-results">
          <div class="toolbar" role="group" aria-label="Pages">
            <button type="button" class="secondary" disabled={page === 0} onClick={() => setPage(page - 1)}>
              ‹ Previous
            </button>
            <span>
              Page {page + 1} of {pages}
            </span>
            <button
              type="button"
              class="secondary"
              disabled={page + 1 >= pages}
              onClick={() => setPage(page + 1)}
            >
              Next ›
            </button>
            <label for="page-size">Page size</label>
            <select
              id="page-size"
              value={size}
              onChange={(e) => (setSize(Number(e.currentTarget.value)), setPage(0))}
            >
              {PAGE_SIZES.map((s) => (
                <option value={s} key={s}>
                  {s}
                </option>
              ))}
            </select>
            <label for="sim-th">Similarity ≥</label>
            <input
              id="sim-th"
              type="number"
              min={0}
              max={1}
              step={0.05}
              value={simTh}
              onChange={(e) => (setSimTh(Number(e.currentTarget.value) || 0), setPage(0))}
            />
            <label class="check">
              <input
                type="checkbox"
                checked={onlyInRange}
                onChange={(e) => setOnlyInRange(e.currentTarget.checked)}
              />{' '}
              Only rows in the property ranges
            </label>
            {loading && <Spinner label="Loading page…" />}
          </div>
          {data && (
            <RangesEditor
              columns={data.columns}
              ranges={ranges}
              onApply={(r) => (setRanges(r), setPage(0))}
            />
          )}
          {data && <ResultsView rows={rows} query={query} caps={caps} key={`${page}/${size}/${simTh}`} />}
          <DownloadsPanel job={props.name} caps={caps} simTh={simTh} ranges={ranges} />
        </div>
      )}
    </section>
  );
}
