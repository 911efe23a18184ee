import { useEffect, useState } from 'preact/hooks';
import { getApiKey, onApiKeyChange } from './account/key-store.ts';
import { AccountPage, KeyForm } from './account/account-page.tsx';
import { refreshUsage, useUsage } from './account/usage.ts';
import { href, useRoute, type Route } from './ui/router.ts';
import { SearchPage } from './search/search-page.tsx';
import { JobsPage } from './jobs/jobs-page.tsx';
import { RunsPage } from './runs/runs-page.tsx';
import { fmt } from './ui/widgets.tsx';

const NAV: [Route['page'], string][] = [
  ['search', 'Search'],
  ['jobs', 'Jobs'],
  ['runs', 'Runs'],
  ['account', 'Account'],
];

function UsageBadge() {
  const usage = useUsage();
  if (!usage) return null;
  return (
    <a class="usage-badge" href={href('account')} title="Requests left today">
      {fmt(usage.remaining)} of {fmt(usage.limit)} left today
    </a>
  );
}

export function App() {
  const route = useRoute();
  const [key, setKey] = useState(getApiKey());
  useEffect(() => onApiKeyChange(setKey), []);
  useEffect(() => {
    if (key) refreshUsage().catch(() => {});
  }, [key]);
  useEffect(() => {
    const title = NAV.find(([p]) => p === route.page)?.[1] ?? 'Search';
    document.title = `${title}${route.id ? ` ${route.id}` : ''} · molsearch`;
  }, [route.page, route.id]);
  const page =
    route.page === 'account' ? (
      <AccountPage />
    ) : !key ? (
      <section class="page narrow" aria-labelledby="welcome-title">
        <h2 id="welcome-title">Welcome</h2>
        <p>Search purchasable molecules by similarity and substructure, run large jobs and v2 runs.</p>
        <KeyForm />
      </section>
    ) : route.page === 'jobs' ? (
      <JobsPage id={route.id} />
    ) : route.page === 'runs' ? (
      <RunsPage id={route.id} />
    ) : (
      <SearchPage />
    );
  return (
    <>
      <button class="skip-link" onClick={() => document.getElementById('main')?.focus()}>
        Skip to content
      </button>
      <header class="top">
        <h1>
          <a href={href('search')}>
            <img src="/favicon.svg" alt="" width={22} height={22} /> molsearch
          </a>
        </h1>
        <nav aria-label="Main">
          {NAV.map(([p, label]) => (
            <a href={href(p)} aria-current={route.page === p ? 'page' : undefined} key={p}>
              {label}
            </a>
          ))}
        </nav>
        <span class="spacer" />
        <UsageBadge />
        <a class="docs-link" href="/docs" target="_blank" rel="noreferrer">
          API docs
        </a>
      </header>
      <main id="main" tabIndex={-1}>
        {page}
      </main>
    </>
  );
}
