// A small sample of the AutoGrow4 × ZINC15 synthon file for exactness tests: per slot the
// `smallest` shortest synthons (where RDKit's redundant-environment rule matters at the join) and
// `spread` more spread over the slot, as a synthon text file RDKit and our builder read.
import { readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { gunzipSync } from 'node:zlib';

const SOURCE = new URL('../../../catalogs/spaces/sources/zinc15_autogrow4_space.txt.gz', import.meta.url);
export const SYNTHON_HEADER = 'SMILES\tsynton_id\tsynton#\treaction_id\n';

export async function writeAutogrow4Sample(
  file: string,
  opts: { smallest: number; spread: number; reactions?: (id: string) => boolean },
): Promise<void> {
  const text = gunzipSync(readFileSync(SOURCE)).toString('utf8');
  const bySlot = new Map<string, string[]>();
  for (const line of text.split('\n').slice(1)) {
    const f = line.split(/\s+/);
    if (f.length < 4 || (opts.reactions && !opts.reactions(f[3]))) continue;
    const key = `${f[3]}\t${f[2]}`;
    const list = bySlot.get(key) ?? [];
    list.push(line);
    bySlot.set(key, list);
  }
  const picked: string[] = [];
  for (const list of bySlot.values()) {
    const bySize = [...list].sort((x, y) => x.split(/\s+/)[0].length - y.split(/\s+/)[0].length);
    const chosen = new Set(bySize.slice(0, opts.smallest));
    for (let k = 1; k <= opts.spread; k++)
      chosen.add(list[Math.floor((k * list.length) / (opts.spread + 1))]);
    picked.push(...chosen);
  }
  await writeFile(file, SYNTHON_HEADER + picked.join('\n') + '\n');
}

/**
 * The sample the ring-core tests check every product of: two smallest and six spread synthons
 * per slot of the reactions the file's filter keeps (the 21 ring-closing ones and the Wittig
 * among them; the filter's names are those the sample file spells its other reactions with).
 */
export const RING_SAMPLE = {
  smallest: 2,
  spread: 6,
  reactions: (id: string): boolean => !/^(13_|66_|67_|87_|1_|2_)/.test(id),
};
