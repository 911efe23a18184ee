/**
 * What the service can do, read from the service itself so new search types, qualities, filters,
 * formats and databases appear in the pages without a change here:
 * - databases, their kinds and search types: GET /available_databases_full (those searchable now);
 * - v2 capabilities per library (substructure, shape/esp scorers): GET /api/v2/catalog;
 * - closed sets (search types, qualities, filters, orderings, export formats) and optional
 *   operations (a visualise endpoint): GET /openapi.json. A parameter's values come from its
 *   schema's enum, else from the list its description gives ("Filters: a, b, c").
 */
export interface Database {
  id: string;
  name: string;
  vendor: string;
  website: string;
  kind: string;
  molecules: number;
  searchTypes: string[];
  predicted: boolean;
  isDefault: boolean;
  substructure: boolean;
  /** v2 selections and runs can read it. */
  selections: boolean;
  cheeseScorers: string[];
}

export interface Operation {
  path: string;
  method: 'get' | 'post';
  params: string[];
}

export interface Capabilities {
  databases: Database[];
  searchTypes: string[];
  searchQualities: string[];
  filters: string[];
  orderings: string[];
  fileFormats: string[];
  maxSyncNeighbors: number;
  maxSyncDatabases: number;
  maxJobNeighbors: number;
  /** A visualise (2D map) operation when the service has one; else the map is computed here. */
  visualise?: Operation;
  hasPath(path: string): boolean;
}

type Json = Record<string, any>;

/** Every enum value found in a JSON schema (enum, const, anyOf/oneOf members, array items). */
export function enumValues(schema: Json | undefined): string[] {
  if (!schema || typeof schema !== 'object') return [];
  const out: string[] = [];
  if (Array.isArray(schema.enum)) out.push(...schema.enum.map(String));
  if (schema.const !== undefined) out.push(String(schema.const));
  for (const k of ['anyOf', 'oneOf']) for (const s of schema[k] ?? []) out.push(...enumValues(s));
  if (schema.items) out.push(...enumValues(schema.items));
  return [...new Set(out)];
}

/** "Filters: No solvents, Lipinsky (x)" → ['No solvents', 'Lipinsky']. */
export function listFromDescription(description: string | undefined): string[] {
  if (!description) return [];
  const body = description.replace(/^[\w ]+:\s*/, '').replace(/\(.*$/, '');
  return body
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s && s.length <= 40 && /^[\w .+-]+$/.test(s));
}

const param = (doc: Json, path: string, name: string, method?: string): Json | undefined => {
  const item = doc.paths?.[path];
  const op = item?.[method ?? (item?.get ? 'get' : 'post')];
  return op?.parameters?.find((p: Json) => p.name === name);
};

export function valuesOf(doc: Json, path: string, name: string, method?: string): string[] {
  const p = param(doc, path, name, method);
  if (!p) return [];
  const fromEnum = enumValues(p.schema);
  return fromEnum.length ? fromEnum : listFromDescription(p.description ?? p.schema?.description);
}

const atMost = (doc: Json, path: string, name: string, fallback: number): number => {
  const p = param(doc, path, name);
  const text = `${p?.description ?? ''} ${p?.schema?.description ?? ''}`;
  const m = /at most ([\d,]+)/i.exec(text);
  // The description's "at most N" is what a request gets back; the schema's maximum can be the
  // bound of the integer itself (/molsearch caps larger n_neighbors at 100 with a remark).
  return m ? Number(m[1].replace(/,/g, '')) : (p?.schema?.maximum ?? fallback);
};

/** The service's GET /visualize (or its alias /visualise; not the file variant), when listed. */
export function findVisualise(doc: Json): Operation | undefined {
  for (const [path, item] of Object.entries<Json>(doc.paths ?? {})) {
    if (!/^\/visuali[sz]e$/.test(path)) continue;
    const method = item.get ? 'get' : item.post ? 'post' : undefined;
    if (!method) continue;
    return { path, method, params: (item[method].parameters ?? []).map((p: Json) => p.name) };
  }
  return undefined;
}

export function capabilitiesFrom(doc: Json, full: Json, catalog: Json): Capabilities {
  const libs = new Map<string, Json>((catalog.libraries ?? []).map((l: Json) => [l.database_id, l]));
  // A database still being built (`searchable: false`) is not offered: a search would answer 422.
  const entries = Object.entries<Json>(full).filter(([, d]) => d.searchable !== false);
  const databases: Database[] = entries.map(([id, d]) => {
    const lib = libs.get(id);
    return {
      id,
      name: d.name ?? id,
      vendor: d.vendor ?? '',
      website: d.vendor_web_page ?? '',
      kind: d.kind ?? lib?.kind ?? 'enumerated',
      molecules: d.number_of_molecules ?? lib?.product_count ?? 0,
      searchTypes: d.search_types ?? [],
      predicted: Boolean(d.predicted_properties),
      isDefault: Boolean(d.default),
      substructure: Boolean(lib?.capabilities?.search_substructure),
      selections: Boolean(lib?.capabilities?.selections),
      cheeseScorers: lib?.capabilities?.search_cheese ?? [],
    };
  });
  databases.sort((a, b) => Number(b.isDefault) - Number(a.isDefault) || a.name.localeCompare(b.name));
  const paths = new Set(Object.keys(doc.paths ?? {}));
  return {
    databases,
    searchTypes: valuesOf(doc, '/molsearch', 'search_type'),
    searchQualities: valuesOf(doc, '/molsearch', 'search_quality'),
    filters: valuesOf(doc, '/molsearch', 'filtering'),
    orderings: valuesOf(doc, '/molsearch', 'ordering'),
    fileFormats: valuesOf(doc, '/prepare_download', 'file_format', 'post'),
    maxSyncNeighbors: atMost(doc, '/molsearch', 'n_neighbors', 100),
    maxSyncDatabases: atMost(doc, '/molsearch', 'db_names', 2),
    maxJobNeighbors: atMost(doc, '/submit_molsearch', 'n_neighbors', 100_000),
    visualise: findVisualise(doc),
    hasPath: (p) => paths.has(p),
  };
}
