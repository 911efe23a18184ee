/**
 * Reader of synthon-space text files: RDKit's SynthonSpaceSearch text format (header
 * `SMILES synton_id synton# reaction_id [release]`, Enamine style) and the Chemspace form (header
 * `SMILES synton_id synton_role reaction_id`, roles `synton_N`), separated by tabs, runs of
 * whitespace or commas. Vendor connectors `[U]`, `[Np]`, `[Pu]`, `[Am]` become `[1*]`…`[4*]`
 * (RDKit's `fixConnectors`). Pure text work: chemistry checks happen in the builder, which adds
 * its own rejects with the same line numbers.
 */

/** One accepted synthon line. */
export interface SynthonLine {
  /** 1-based line number in the input file. */
  line: number;
  /** SMILES with `[n*]` connectors. */
  smiles: string;
  synthonId: string;
  /** The slot as written (`synton#`, or N of `synton_N`); compacted per reaction later. */
  rawSlot: number;
  reactionId: string;
}

/** A line the reader or builder rejected, with why. */
export interface RejectedLine {
  line: number;
  reason: string;
  text: string;
}

export type SynthonHeader = 'synton#' | 'synton_role';

export interface ParsedSynthonText {
  header: SynthonHeader;
  separator: 'tab' | 'comma' | 'whitespace';
  lines: SynthonLine[];
  rejects: RejectedLine[];
}

/** The vendor connector atoms and the numbered dummies they stand for (RDKit's CONNECTOR_SYMBOLS). */
const CONNECTORS: ReadonlyArray<[RegExp, string]> = [
  [/\[U\]/g, '[1*]'],
  [/\[Np\]/g, '[2*]'],
  [/\[Pu\]/g, '[3*]'],
  [/\[Am\]/g, '[4*]'],
];

/** Rewrites vendor connectors to numbered dummy atoms. */
export function fixConnectors(smiles: string): string {
  let s = smiles;
  for (const [re, to] of CONNECTORS) s = s.replace(re, to);
  return s;
}

/** Product ids join the reaction id and the synthon ids with this character, so ids may not hold it. */
export const ID_SEPARATOR = ';';

/** Thrown when the file has no usable header: nothing can be read. */
export class SynthonFormatError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SynthonFormatError';
  }
}

function splitFields(line: string, sep: ParsedSynthonText['separator']): string[] {
  if (sep === 'tab') return line.split('\t').filter((f) => f.trim() !== '');
  if (sep === 'comma') return line.split(',').map((f) => f.trim());
  return line.trim().split(/\s+/);
}

function headerOf(fields: string[]): SynthonHeader | undefined {
  const f = fields.map((x) => x.trim().toLowerCase());
  if (f.length < 4 || f.length > 5 || f[0] !== 'smiles' || f[1] !== 'synton_id' || f[3] !== 'reaction_id')
    return undefined;
  if (f.length === 5 && f[4] !== 'release') return undefined;
  if (f[2] === 'synton#') return 'synton#';
  if (f[2] === 'synton_role' && f.length === 4) return 'synton_role';
  return undefined;
}

/** Reads the whole text of a synthon file; bad lines go to `rejects` with their line numbers. */
export function parseSynthonText(text: string): ParsedSynthonText {
  const rows = text.split('\n');
  let header: SynthonHeader | undefined;
  let separator: ParsedSynthonText['separator'] = 'tab';
  const lines: SynthonLine[] = [];
  const rejects: RejectedLine[] = [];
  const seen = new Set<string>();
  for (let i = 0; i < rows.length; i++) {
    const raw = rows[i].replace(/\r$/, '');
    const n = i + 1;
    if (raw.trim() === '' || raw.trimStart().startsWith('#')) continue;
    if (!header) {
      // Tab first, so CXSMILES with spaces survive; then commas; then any whitespace.
      for (const sep of ['tab', 'comma', 'whitespace'] as const) {
        const h = headerOf(splitFields(raw, sep));
        if (h) {
          header = h;
          separator = sep;
          break;
        }
      }
      if (!header)
        throw new SynthonFormatError(
          `line ${n}: expected a header "SMILES synton_id synton# reaction_id [release]" or ` +
            `"SMILES synton_id synton_role reaction_id", found ${JSON.stringify(raw.slice(0, 80))}`,
        );
      continue;
    }
    const reject = (reason: string): void => void rejects.push({ line: n, reason, text: raw });
    const fields = splitFields(raw, separator);
    const want = header === 'synton#' ? [4, 5] : [4];
    if (!want.includes(fields.length)) {
      reject(`expected ${want.join(' or ')} fields, found ${fields.length}`);
      continue;
    }
    const [smilesRaw, synthonId, slotText, reactionId] = fields.map((f) => f.trim());
    let rawSlot: number;
    if (header === 'synton#') rawSlot = /^\d+$/.test(slotText) ? Number(slotText) : NaN;
    else rawSlot = /^synton_\d+$/i.test(slotText) ? Number(slotText.slice(7)) : NaN;
    if (!Number.isSafeInteger(rawSlot)) {
      reject(`bad ${header === 'synton#' ? 'synton# (a non-negative integer)' : 'synton_role (synton_N)'}`);
      continue;
    }
    if (!smilesRaw || !synthonId || !reactionId) {
      reject('empty SMILES, synton_id or reaction_id');
      continue;
    }
    if (synthonId.includes(ID_SEPARATOR) || reactionId.includes(ID_SEPARATOR)) {
      reject(`synton_id and reaction_id may not contain "${ID_SEPARATOR}" (product ids join them with it)`);
      continue;
    }
    const key = `${reactionId}\u0000${rawSlot}\u0000${synthonId}`;
    if (seen.has(key)) {
      reject(`duplicate synthon ${synthonId} in slot ${rawSlot} of reaction ${reactionId}`);
      continue;
    }
    seen.add(key);
    lines.push({ line: n, smiles: fixConnectors(smilesRaw), synthonId, rawSlot, reactionId });
  }
  if (!header) throw new SynthonFormatError('no header line: the file is empty');
  return { header, separator, lines, rejects };
}

/** The connector labels (1–4) of a SMILES, in order of appearance, from its `[n*]` / `[n*:m]` atoms. */
export function connectorLabels(smiles: string): number[] {
  const out: number[] = [];
  for (const m of smiles.matchAll(/\[(\d+)\*(?::\d+)?\]/g)) out.push(Number(m[1]));
  return out;
}
