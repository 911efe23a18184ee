import { useEffect, useState } from 'preact/hooks';
import { getApiKey, setApiKey } from './key-store.ts';
import { refreshUsage, useUsage } from './usage.ts';
import { ErrorMessage, fmt, Progress, when } from '../ui/widgets.tsx';

/** Paste the key once (kept in this browser's storage), check it, see today's usage. */
export function KeyForm(props: { onSaved?: () => void }) {
  const [value, setValue] = useState('');
  const [shown, setShown] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const save = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    const previous = getApiKey();
    setApiKey(value);
    try {
      await refreshUsage();
      setValue('');
      props.onSaved?.();
    } catch (err) {
      setApiKey(previous);
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  return (
    <form class="key-form" onSubmit={save} autocomplete="off">
      <label for="api-key">API key</label>
      <div class="row">
        <input
          id="api-key"
          type={(shown ? 'text' : 'password') as 'text'}
          value={value}
          onInput={(e) => setValue(e.currentTarget.value)}
          placeholder="ms_…"
          required
          spellcheck={false}
          aria-describedby="api-key-help"
        />
        <button type="button" class="secondary" onClick={() => setShown(!shown)} aria-pressed={shown}>
          {shown ? 'Hide' : 'Show'}
        </button>
        <button type="submit" disabled={busy || !value.trim()}>
          {busy ? 'Checking…' : 'Save key'}
        </button>
      </div>
      <p id="api-key-help" class="hint">
        Kept in this browser only (local storage) and sent in the X-API-Key header.{' '}
        <code>bash scripts/start.sh</code> prints a development key;{' '}
        <code>node bin/molsearch.ts keys create</code> makes others.
      </p>
      <ErrorMessage error={error} />
    </form>
  );
}

export function AccountPage() {
  const usage = useUsage();
  const [key, setKey] = useState(getApiKey());
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    if (key) refreshUsage().catch(setError);
  }, [key]);
  return (
    <section class="page narrow" aria-labelledby="account-title">
      <h2 id="account-title">Account</h2>
      {key ? (
        <>
          <p>
            A key ending in <code>…{key.slice(-4)}</code> is saved in this browser.{' '}
            <button
              class="link"
              onClick={() => {
                setApiKey(null);
                setKey(null);
              }}
            >
              Forget it
            </button>
          </p>
          <ErrorMessage error={error} />
          {usage && (
            <div class="usage-card">
              <h3>Today’s usage</h3>
              <Progress value={usage.used} max={usage.limit} label="Requests used today" />
              <dl class="facts">
                <dt>Tier</dt>
                <dd>{usage.account_type}</dd>
                <dt>Used</dt>
                <dd>{fmt(usage.used)}</dd>
                <dt>Remaining</dt>
                <dd data-testid="remaining">{fmt(usage.remaining)}</dd>
                <dt>Daily limit</dt>
                <dd>{fmt(usage.limit)}</dd>
                <dt>Resets</dt>
                <dd>
                  {when(usage.reset_at)} (in {Math.round(usage.seconds_to_reset / 60)} min)
                </dd>
              </dl>
              <p class="hint">Every request counts once, this page’s included.</p>
            </div>
          )}
          <h3>Replace the key</h3>
        </>
      ) : (
        <p>Paste your API key to use the service from this browser.</p>
      )}
      <KeyForm onSaved={() => setKey(getApiKey())} />
    </section>
  );
}
