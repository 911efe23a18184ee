import { useEffect, useState } from 'preact/hooks';
import { call, messageOf } from '../http/client.ts';
import type { Capabilities } from '../http/capabilities.ts';
import { loadCapabilities } from '../http/load-capabilities.ts';
import { usageChanged } from '../account/usage.ts';
import { navigate } from '../ui/router.ts';
import { ErrorMessage, Spinner, Status } from '../ui/widgets.tsx';
import { ResultsView } from './results-view.tsx';
import { modeLabel, SearchForm } from './search-form.tsx';
import { runSearch, SUBSTRUCTURE, type SearchParams, type SearchResult } from './rows.ts';

/** Hook: the service's capabilities, loaded once. */
export function useCapabilities(): { caps: Capabilities | null; error: unknown } {
  const [caps, setCaps] = useState<Capabilities | null>(null);
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    loadCapabilities().then(setCaps, setError);
  }, []);
  return { caps, error };
}

// The last result survives a visit to another page of the app.
let lastResult: SearchResult | null = null;

export function SearchPage() {
  const { caps, error: capsError } = useCapabilities();
  const [result, setResult] = useState<SearchResult | null>(lastResult);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const search = async (p: SearchParams) => {
    setBusy(true);
    setError(null);
    try {
      const r = await runSearch(p);
      lastResult = r;
      setResult(r);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
      usageChanged();
    }
  };
  const submitJob = async (p: SearchParams, size: number) => {
    setBusy(true);
    setError(null);
    try {
      const name = await call<string>('/submit_molsearch', {
        query: {
          search_input: p.smiles,
          search_type: p.mode,
          search_quality: p.quality,
          db_names: p.databases,
          n_neighbors: size,
        },
      });
      navigate('jobs', name);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
      usageChanged();
    }
  };
  if (capsError) return <ErrorMessage error={capsError} />;
  if (!caps) return <Spinner label="Loading the service’s databases…" />;
  return (
    <div class="search-page">
      <aside class="query-panel">
        <h2>Search</h2>
        <SearchForm
          caps={caps}
          busy={busy}
          onSearch={search}
          onSubmitJob={submitJob}
          error={error ? messageOf(error) : undefined}
        />
      </aside>
      <div class="results-panel">
        <ErrorMessage error={error} id="search-error" />
        {busy && <Spinner label="Searching…" />}
        {result && !busy && (
          <>
            <Status>
              {result.rows.length} results · {modeLabel(result.mode)} · query <code>{result.query}</code> ·{' '}
              {Math.round(result.elapsedMs)} ms.
              {result.remarks.map((r) => ` ${r}`)}
            </Status>
            <ResultsView
              rows={result.rows}
              query={result.query}
              caps={caps}
              highlightQuery={result.mode !== SUBSTRUCTURE}
            />
          </>
        )}
        {!result && !busy && !error && (
          <div class="empty">
            <p>Results appear here as structures. Pick a result to compare it with the query.</p>
          </div>
        )}
      </div>
    </div>
  );
}
