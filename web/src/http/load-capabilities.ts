import { call } from './client.ts';
import { capabilitiesFrom, type Capabilities } from './capabilities.ts';

type Json = Record<string, any>;

let cached: Promise<Capabilities> | undefined;

/** Loaded once per page load (three requests); `refresh` reloads after a key change. */
export function loadCapabilities(refresh = false): Promise<Capabilities> {
  if (!cached || refresh) {
    cached = Promise.all([
      call<Json>('/openapi.json', { anonymous: true }),
      call<Json>('/available_databases_full'),
      call<Json>('/api/v2/catalog').catch(() => ({ libraries: [] })),
    ]).then(([doc, full, catalog]) => capabilitiesFrom(doc, full, catalog));
    cached.catch(() => (cached = undefined));
  }
  return cached;
}
