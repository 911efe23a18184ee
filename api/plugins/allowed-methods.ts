/**
 * The methods each path answers, for the not-found handler: a path that exists under another
 * method answers 405 with `Allow`, as FastAPI (the legacy generation's origin) and HTTP say,
 * instead of 404 "Not Found", which told a user with a POST to a GET route that the route was
 * missing (user trial).
 */
import type { FastifyInstance, RouteOptions } from 'fastify';

interface Pattern {
  re: RegExp;
  methods: Set<string>;
}

/** A route URL as a regular expression: `:name` one segment, `*` the rest. */
function patternOf(url: string): RegExp {
  const body = url
    .split('/')
    .map((seg) =>
      seg.startsWith(':') ? '[^/]+' : seg.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*'),
    )
    .join('/');
  return new RegExp(`^${body}/?$`);
}

/** Records every route registered after this call; the returned function lists a path's methods. */
export function trackAllowedMethods(app: FastifyInstance): (path: string) => string[] {
  const byUrl = new Map<string, Pattern>();
  app.addHook('onRoute', (route: RouteOptions) => {
    let p = byUrl.get(route.url);
    if (!p) byUrl.set(route.url, (p = { re: patternOf(route.url), methods: new Set() }));
    for (const m of [route.method].flat()) p.methods.add(m);
  });
  return (path) => {
    const out = new Set<string>();
    for (const p of byUrl.values()) if (p.re.test(path)) for (const m of p.methods) out.add(m);
    return [...out].sort();
  };
}
