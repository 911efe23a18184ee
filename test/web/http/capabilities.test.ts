import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildReferenceCatalog } from '../../support/fixture-catalog.ts';
import { startApiHarness, type ApiHarness } from '../../support/api-harness.ts';
import { capabilitiesFrom, listFromDescription } from '../../../web/src/http/capabilities.ts';

// The real app's OpenAPI document and database list: what the pages offer comes from the service.
let h: ApiHarness;
beforeAll(async () => {
  const built = await buildReferenceCatalog({ id: 'capcat', take: (_m, i) => i < 40 });
  h = await startApiHarness([built.catalog]);
}, 120_000);
afterAll(() => h?.close());

describe('capabilities read from the service', () => {
  it('offers the search types, qualities, filters and orderings the service declares, and its databases', async () => {
    const doc = (await h.app.inject({ url: '/openapi.json' })).json();
    const full = (
      await h.app.inject({ url: '/available_databases_full', headers: { 'x-api-key': h.key } })
    ).json();
    const caps = capabilitiesFrom(doc, full, { libraries: [] });
    expect(caps.searchTypes).toEqual([
      'morgan',
      'espsim_electrostatic',
      'espsim_shape',
      'synthongpt',
      'consensus',
    ]);
    expect(caps.searchQualities).toEqual(['fast', 'accurate', 'very_accurate', '100', '1000', '10000']);
    expect(caps.filters).toEqual([
      'No solvents',
      'Lipinsky',
      'QED',
      'PAINS',
      'Substructure',
      'Superstructure',
      'Murcko scaffold hop',
      'Regioisomers',
      'No rare atoms',
    ]);
    expect(caps.orderings).toContain('Morgan Tanimoto');
    expect(caps.maxSyncNeighbors).toBe(100);
    expect(caps.maxSyncDatabases).toBe(2);
    expect(caps.databases).toEqual([
      expect.objectContaining({
        id: 'capcat',
        searchTypes: ['morgan'],
        isDefault: true,
        molecules: expect.any(Number),
      }),
    ]);
    expect(caps.visualise).toBeUndefined();
  });

  it('does not offer a database that is still being built (searchable: false)', () => {
    const full = {
      ready: { name: 'Ready', search_types: ['morgan'], searchable: true },
      coming: { name: 'Coming', search_types: [], searchable: false, status: 'building' },
      older: { name: 'Older service', search_types: ['morgan'] },
    };
    const caps = capabilitiesFrom({}, full, { libraries: [] });
    expect(caps.databases.map((d) => d.id).sort()).toEqual(['older', 'ready']);
  });

  it('finds a visualise operation when the document lists one', () => {
    const doc = {
      paths: {
        '/visualize_file': { get: { parameters: [] } },
        '/visualize': { get: { parameters: [{ name: 'search_input' }, { name: 'visualisation_method' }] } },
      },
    };
    expect(capabilitiesFrom(doc, {}, {}).visualise).toEqual({
      path: '/visualize',
      method: 'get',
      params: ['search_input', 'visualisation_method'],
    });
  });

  it('reads a list of values from a parameter description when there is no enum', () => {
    expect(listFromDescription('csv, json, xlsx, sdf (repeated parameter; several at once)')).toEqual([
      'csv',
      'json',
      'xlsx',
      'sdf',
    ]);
  });
});
