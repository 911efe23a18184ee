// A v2 hit's property maps hold numbers only: the released SDK's Hit.properties and
// predicted_properties are dict[str, float], and one null made it refuse the whole answer.
import { describe, expect, it } from 'vitest';
import { parseMoleculeRecords, libraryFromRecords } from '../../../engine/selection/library.ts';
import { DESCRIPTOR_NAMES } from '../../../engine/chem/descriptors.ts';
import { predicted, properties } from '../../../api/services/v2-search-common.ts';

const info = {
  database_id: 'mem',
  name: 'mem',
  vendor: '',
  website: '',
  contact: '',
  release: '1',
  kind: 'enumerated' as const,
  predicted_property_ids: ['admet.not_served'],
};

describe('v2 hit property maps', () => {
  it('leave out a value that could not be computed instead of sending null', async () => {
    const [aspirin] = await parseMoleculeRecords([{ id: 'a', smiles: 'CC(=O)Oc1ccccc1C(=O)O' }]);
    // A descriptor that failed is NaN in the catalog's column.
    const broken = { ...aspirin, descriptors: aspirin.descriptors.map((v, j) => (j === 0 ? NaN : v)) };
    const lib = libraryFromRecords(info, [aspirin, broken]);
    const whole = properties(lib, 0);
    expect(Object.keys(whole)).toEqual([...DESCRIPTOR_NAMES]);
    expect(Object.values(whole).every((v) => typeof v === 'number' && Number.isFinite(v))).toBe(true);
    const partial = properties(lib, 1);
    expect(Object.keys(partial)).toEqual(DESCRIPTOR_NAMES.slice(1));
    expect(Object.values(partial)).not.toContain(null);
    // A predicted property without a column: absent, not null.
    expect(predicted(lib, 0)).toEqual({});
  });
});
