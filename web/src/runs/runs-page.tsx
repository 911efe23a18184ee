import { useEffect, useState } from 'preact/hooks';
import { useCapabilities } from '../search/search-page.tsx';
import { usageChanged } from '../account/usage.ts';
import { href, navigate } from '../ui/router.ts';
import { ErrorMessage, Spinner, when } from '../ui/widgets.tsx';
import { batchRunDocument, createRun, listRuns, type Run } from './run-api.ts';
import { RunView } from './run-view.tsx';

const EXAMPLE = [
  'CC(=O)Oc1ccccc1C(=O)O aspirin',
  'Cn1c(=O)c2c(ncn2C)n(C)c1=O caffeine',
  'CC(C)Cc1ccc(C(C)C(=O)O)cc1 ibuprofen',
].join('\n');

function NewRunForm() {
  const { caps } = useCapabilities();
  const [lines, setLines] = useState(EXAMPLE);
  const [db, setDb] = useState('');
  const [hits, setHits] = useState(10);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const dbs = caps?.databases.filter((d) => d.selections) ?? [];
  const database = db || dbs.find((d) => d.isDefault)?.id || dbs[0]?.id || '';
  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const run = await createRun(batchRunDocument(lines, database, hits), crypto.randomUUID());
      navigate('runs', run.id);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
      usageChanged();
    }
  };
  return (
    <form class="new-run" onSubmit={submit} aria-labelledby="new-run-title">
      <h3 id="new-run-title">New run: nearest products of each molecule</h3>
      <div class="field">
        <label for="run-lines">Query molecules, one per line (SMILES, then an optional name)</label>
        <textarea
          id="run-lines"
          rows={5}
          value={lines}
          spellcheck={false}
          onInput={(e) => setLines(e.currentTarget.value)}
        />
      </div>
      <div class="row">
        <div class="field">
          <label for="run-db">Database</label>
          <select id="run-db" value={database} onChange={(e) => setDb(e.currentTarget.value)}>
            {dbs.map((d) => (
              <option value={d.id} key={d.id}>
                {d.name}
              </option>
            ))}
          </select>
        </div>
        <div class="field">
          <label for="run-hits">Hits per molecule</label>
          <input
            id="run-hits"
            type="number"
            min={1}
            max={200}
            value={hits}
            onInput={(e) => setHits(Number(e.currentTarget.value))}
          />
        </div>
        <button type="submit" disabled={busy || !database || !lines.trim()}>
          {busy ? 'Submitting…' : 'Start run'}
        </button>
      </div>
      <ErrorMessage error={error} />
    </form>
  );
}

function RunList() {
  const [runs, setRuns] = useState<Run[] | null>(null);
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    listRuns().then((p) => setRuns(p.data), setError);
  }, []);
  return (
    <section class="page" aria-labelledby="runs-title">
      <h2 id="runs-title">Runs</h2>
      <NewRunForm />
      <h3>Your runs</h3>
      <ErrorMessage error={error} />
      {!runs && !error && <Spinner label="Loading your runs…" />}
      {runs && runs.length === 0 && <p>No runs yet.</p>}
      {runs && runs.length > 0 && (
        <table class="list">
          <thead>
            <tr>
              <th scope="col">Run</th>
              <th scope="col">Kind</th>
              <th scope="col">Status</th>
              <th scope="col">Items done</th>
              <th scope="col">Created</th>
            </tr>
          </thead>
          <tbody>
            {runs.map((r) => (
              <tr key={r.id}>
                <td>
                  <a href={href('runs', r.id)}>{r.id}</a>
                </td>
                <td>{r.kind}</td>
                <td>
                  <span class={`badge ${r.status}`}>{r.status.replace(/_/g, ' ')}</span>
                </td>
                <td>
                  {r.progress.succeeded + r.progress.failed + r.progress.cancelled} / {r.progress.total}
                </td>
                <td>{when(r.created_at)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

export function RunsPage(props: { id?: string }) {
  return props.id ? <RunView id={props.id} key={props.id} /> : <RunList />;
}
