/**
 * RDKit's functional-group SMARTS (Data/FunctionalGroups.txt, copied into ./data; see its README):
 * the SMARTS patterns offered as prefilters for synthon search (/smarts_patterns). Ids follow file
 * order (`fg_001`, ...), so they are stable as long as the bundled file is.
 */
import { readFileSync } from 'node:fs';

export interface SmartsPattern {
  id: string;
  /** The group as the file writes it, e.g. `-C(=O)O`. */
  group: string;
  /** The file's note, e.g. `carboxylic acids`. */
  label: string;
  smarts: string;
}

export const FUNCTIONAL_GROUPS_URL = new URL('./data/FunctionalGroups.txt', import.meta.url);

/** Parses the tab-separated `group, SMARTS, note` lines (comments `//` and blank lines skipped). */
export function parseFunctionalGroups(text: string): SmartsPattern[] {
  const out: SmartsPattern[] = [];
  for (const line of text.split(/\r?\n/)) {
    if (line.trim() === '' || line.trimStart().startsWith('//')) continue;
    const [group, smarts, label] = line
      .split('\t')
      .map((f) => f.trim())
      .filter(Boolean);
    if (!group || !smarts) continue;
    out.push({ id: `fg_${String(out.length + 1).padStart(3, '0')}`, group, label: label ?? group, smarts });
  }
  return out;
}

let cached: SmartsPattern[] | undefined;

/** The bundled patterns (read once). */
export function functionalGroups(): SmartsPattern[] {
  cached ??= parseFunctionalGroups(readFileSync(FUNCTIONAL_GROUPS_URL, 'utf8'));
  return cached;
}
