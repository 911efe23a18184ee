import { useEffect, useRef, useState } from 'preact/hooks';
import { streamEvents } from '../http/sse.ts';
import { Depiction } from '../chem/depiction.tsx';
import { usageChanged } from '../account/usage.ts';
import { href } from '../ui/router.ts';
import { ErrorMessage, fmt, Progress, Spinner, when } from '../ui/widgets.tsx';
import {
  cancelRun,
  getRun,
  RUN_TERMINAL,
  runItems,
  runResults,
  type Run,
  type RunEvent,
  type RunItem,
  type RunResult,
} from './run-api.ts';

/**
 * One run, watched live: its events arrive over server-sent events (read with fetch, so the key
 * stays in a header) and move the progress; once it ends, its items and results are shown.
 */
export function RunView(props: { id: string }) {
  const [run, setRun] = useState<Run | null>(null);
  const [events, setEvents] = useState<RunEvent[]>([]);
  const [connected, setConnected] = useState(false);
  const [items, setItems] = useState<RunItem[] | null>(null);
  const [results, setResults] = useState<RunResult[] | null>(null);
  const [error, setError] = useState<unknown>(null);
  const log = useRef<HTMLOListElement>(null);
  const terminal = run ? RUN_TERMINAL.includes(run.status) : false;
  useEffect(() => {
    const ctl = new AbortController();
    (async () => {
      const first = await getRun(props.id);
      setRun(first);
      await streamEvents(
        `/api/v2/runs/${encodeURIComponent(props.id)}/events/stream`,
        (m) => {
          const e = JSON.parse(m.data) as RunEvent;
          setEvents((prev) => (prev.some((p) => p.sequence === e.sequence) ? prev : [...prev, e]));
          setRun((r) =>
            r ? { ...r, progress: e.progress, status: e.type.startsWith('run.') ? e.status : r.status } : r,
          );
        },
        { signal: ctl.signal, onConnect: () => setConnected(true) },
      );
      setConnected(false);
      if (!ctl.signal.aborted) setRun(await getRun(props.id));
    })()
      .catch((err) => !ctl.signal.aborted && setError(err))
      .finally(usageChanged);
    return () => ctl.abort();
  }, [props.id]);
  useEffect(() => {
    if (!terminal) return;
    runItems(props.id).then((p) => setItems(p.data), setError);
    runResults(props.id).then((p) => setResults(p.data), setError);
  }, [terminal]);
  useEffect(() => {
    log.current?.lastElementChild?.scrollIntoView({ block: 'nearest' });
  }, [events.length]);
  const p = run?.progress;
  return (
    <section class="page" aria-labelledby="run-title">
      <p class="crumbs">
        <a href={href('runs')}>Runs</a> ›
      </p>
      <h2 id="run-title">
        Run <code>{props.id}</code>
      </h2>
      <ErrorMessage error={error} />
      {!run && !error && <Spinner label="Loading the run…" />}
      {run && p && (
        <div class="run-head">
          <dl class="facts inline">
            <dt>Status</dt>
            <dd>
              <span class={`badge ${run.status}`} data-testid="run-status">
                {run.status.replace(/_/g, ' ')}
              </span>
            </dd>
            <dt>Kind</dt>
            <dd>{run.kind}</dd>
            <dt>Created</dt>
            <dd>{when(run.created_at)}</dd>
            <dt>Succeeded</dt>
            <dd>{p.succeeded}</dd>
            <dt>Failed</dt>
            <dd>{p.failed}</dd>
          </dl>
          <div class="row">
            <Progress value={p.succeeded + p.failed + p.cancelled} max={p.total} label="Items finished" />
            {!terminal && (
              <button type="button" class="secondary" onClick={() => cancelRun(props.id).catch(setError)}>
                Cancel run
              </button>
            )}
          </div>
        </div>
      )}
      <div class="run-body">
        <section class="events" aria-labelledby="events-title">
          <h3 id="events-title">
            Events{' '}
            {connected ? (
              <span class="live">● live</span>
            ) : terminal ? (
              ''
            ) : (
              <span class="muted">(connecting)</span>
            )}
          </h3>
          <div role="log" aria-label="Run events">
            <ol class="event-log" ref={log} data-testid="event-log">
              {events.map((e) => (
                <li key={e.sequence} data-type={e.type}>
                  <span class="seq">#{e.sequence}</span> <span class="etype">{e.type}</span>
                  {e.item_id && <code>{e.item_id}</code>}
                  <span class="muted">
                    {e.progress.succeeded + e.progress.failed + e.progress.cancelled}/{e.progress.total}
                  </span>
                </li>
              ))}
            </ol>
          </div>
        </section>
        <section class="run-results" aria-labelledby="results-title">
          <h3 id="results-title">Results</h3>
          {!terminal && <p class="muted">Shown when the run finishes.</p>}
          {items && items.some((i) => i.error) && (
            <ul class="item-errors">
              {items
                .filter((i) => i.error)
                .map((i) => (
                  <li key={i.id} class="message error">
                    <code>{i.id}</code>: {i.error!.message}
                  </li>
                ))}
            </ul>
          )}
          {results?.map((r) => (
            <div class="item-result" key={r.item_id}>
              <h4>
                {r.item_id} <span class="muted">(item {r.input_index + 1})</span>
              </h4>
              <ul class="hits">
                {(r.results ?? []).slice(0, 8).map((h) => (
                  <li key={h.product_id}>
                    <Depiction
                      smiles={h.smiles}
                      width={150}
                      height={110}
                      label={`Structure of ${h.product_id}`}
                    />
                    <span class="card-id">{h.product_id}</span>
                    <span class="score">{fmt(h.score)}</span>
                  </li>
                ))}
              </ul>
            </div>
          ))}
        </section>
      </div>
    </section>
  );
}
