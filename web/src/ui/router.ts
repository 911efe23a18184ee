import { useEffect, useState } from 'preact/hooks';

/**
 * Hash routes (#/search, #/jobs/<name>, #/runs/<id>, #/account): the server serves one page at
 * `/`, and the address never carries the API key or any query data besides ids.
 */
export interface Route {
  page: 'search' | 'jobs' | 'runs' | 'account';
  id?: string;
}

export function parseRoute(hash: string): Route {
  const [page, id] = hash.replace(/^#\/?/, '').split('/').map(decodeURIComponent);
  if (page === 'jobs' || page === 'runs' || page === 'account') return { page, id: id || undefined };
  return { page: 'search' };
}

export const href = (page: Route['page'], id?: string) =>
  `#/${page}${id ? `/${encodeURIComponent(id)}` : ''}`;

export function navigate(page: Route['page'], id?: string): void {
  location.hash = href(page, id);
}

export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseRoute(location.hash));
  useEffect(() => {
    const on = () => setRoute(parseRoute(location.hash));
    addEventListener('hashchange', on);
    return () => removeEventListener('hashchange', on);
  }, []);
  return route;
}
