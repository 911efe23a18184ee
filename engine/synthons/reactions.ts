/**
 * Groups accepted synthon lines into reactions: slots compacted to 0..k-1 in the order of their
 * written numbers, connector labels checked (a label joins two slots, as a product is made by
 * bonding the atoms at the same-numbered dummies; a label of one slot only stays a dummy atom in
 * the product), ring-forming reactions flagged.
 */
import { connectorLabels, type RejectedLine, type SynthonLine } from './parse.ts';

export interface ReactionDraft {
  id: string;
  /** Synthon lines per compacted slot. */
  slots: SynthonLine[][];
  /** The slot numbers as written in the file, per compacted slot. */
  rawSlots: number[];
  /** Connector labels of each slot: those most of its synthons carry (the builder rejects the others). */
  labels: number[][];
  /** True when the joins close a ring (as many labels as slots, or more). */
  ringForming: boolean;
}

export const MAX_SLOTS = 4;

/** Reactions in order of first appearance; lines of a malformed reaction all become rejects. */
export function groupReactions(lines: SynthonLine[]): {
  reactions: ReactionDraft[];
  rejects: RejectedLine[];
} {
  const byReaction = new Map<string, SynthonLine[]>();
  for (const l of lines) {
    const list = byReaction.get(l.reactionId);
    if (list) list.push(l);
    else byReaction.set(l.reactionId, [l]);
  }
  const reactions: ReactionDraft[] = [];
  const rejects: RejectedLine[] = [];
  for (const [id, list] of byReaction) {
    const rawSlots = [...new Set(list.map((l) => l.rawSlot))].sort((a, b) => a - b);
    const slots = rawSlots.map((s) => list.filter((l) => l.rawSlot === s));
    const labels = slots.map(commonLabels);
    const problem = reactionProblem(rawSlots.length, labels);
    if (problem) {
      for (const l of list)
        rejects.push({ line: l.line, reason: `reaction ${id}: ${problem}`, text: l.smiles });
      continue;
    }
    const paired = new Set(labels.flat().filter((l) => labels.filter((ls) => ls.includes(l)).length === 2));
    reactions.push({ id, slots, rawSlots, labels, ringForming: paired.size >= rawSlots.length });
  }
  return { reactions, rejects };
}

function reactionProblem(nSlots: number, labels: number[][]): string | undefined {
  if (nSlots < 2) return 'has a single synthon set (a product needs at least 2)';
  if (nSlots > MAX_SLOTS) return `has ${nSlots} synthon sets (at most ${MAX_SLOTS})`;
  const uses = new Map<number, number>();
  for (const ls of labels) for (const l of ls) uses.set(l, (uses.get(l) ?? 0) + 1);
  // A label used by one set only stays a dummy atom in the product (RDKit's enumerations keep it).
  for (const [label, n] of uses)
    if (n > 2) return `connector [${label}*] is used by ${n} synthon sets, at most 2 may share one`;
  // The slots must form one connected product.
  const seen = new Set([0]);
  let grew = true;
  while (grew) {
    grew = false;
    for (let s = 0; s < labels.length; s++)
      if (!seen.has(s) && labels[s].some((l) => [...seen].some((t) => labels[t].includes(l)))) {
        seen.add(s);
        grew = true;
      }
  }
  if (seen.size !== labels.length) return 'its synthon sets do not connect into one product';
  return undefined;
}

/** The connector label set most synthons of a slot carry (the first seen wins a tie). */
function commonLabels(lines: SynthonLine[]): number[] {
  const counts = new Map<string, number>();
  for (const l of lines) {
    const key = [...new Set(connectorLabels(l.smiles))].sort((a, b) => a - b).join(',');
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  let best = '';
  let n = -1;
  for (const [key, c] of counts) if (c > n) [best, n] = [key, c];
  return best === '' ? [] : best.split(',').map(Number);
}
