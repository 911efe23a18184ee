/**
 * Reading a ring side (ring-side.ts makes them; its header has the layout): the codes of the
 * environments that see the partner, computed next to the partner's side. Pure, typed arrays.
 */
import { combine, hashPair } from '../analysis/embed/morgan-counts.ts';
import { FP_BYTES } from '../chem/fingerprint.ts';

const NBITS = FP_BYTES * 8;
const WORDS = FP_BYTES / 4;

/** Where a side's atoms bonded to a connector are counted (nA), from its offset. */
export const attachAt = (buf: Uint32Array, off: number): number => off + WORDS + 1 + 2 * buf[off + WORDS];

/** Most neighbours a centre may have here (the work array's length). */
export const MAX_PAIRS = 32;
const pairs = new Float64Array(MAX_PAIRS);
const PAIR_SHIFT = 2 ** 32;

/** Adds (bond, value) to the first m sorted pairs: RDKit's order of a centre's neighbours. */
export function insertPair(m: number, bond: number, value: number): void {
  const v = bond * PAIR_SHIFT + value;
  let p = m;
  for (; p > 0 && pairs[p - 1] > v; p--) pairs[p] = pairs[p - 1];
  pairs[p] = v;
}

/** RDKit's code from a seed (layer and the centre's previous code) and its sorted pairs. */
export function codeFrom(layer: number, prev: number, m: number): number {
  let code = combine(layer, prev);
  for (let p = 0; p < m; p++) {
    const bt = Math.floor(pairs[p] / PAIR_SHIFT);
    code = combine(code, hashPair(bt, pairs[p] - bt * PAIR_SHIFT));
  }
  return code;
}

const attachCode = new Uint32Array(64);

/** The invariant the side at `off` has at connector `label`, or −1 when it has none. */
function partnerInv(buf: Uint32Array, off: number, label: number): number {
  const nL = buf[off + WORDS];
  for (let k = 0; k < nL; k++)
    if (buf[off + WORDS + 1 + 2 * k] === label) return buf[off + WORDS + 2 + 2 * k];
  return -1;
}

/**
 * Per atom A bonded to a connector of the side at `off` (nearBits' order), into `out`: 1 when A
 * also has a neighbour of its own. Its (A, 1) environment then spans two bonds or more in every
 * product, and RDKit drops a radius-1 environment as redundant only when its bond set is another
 * atom's (two atoms of degree one bonded to each other), so that code's bit is in the product.
 * Returns the count of such atoms (all of them are written).
 */
export function keptAttach(buf: Uint32Array, off: number, out: Uint8Array): number {
  let o = attachAt(buf, off);
  const nA = buf[o++];
  for (let k = 0; k < nA; k++) {
    o++;
    const m = buf[o++];
    let own = 0;
    for (let e = 0; e < m; e++, o += 3) if (buf[o + 2] === 0) own = 1;
    if (k < out.length) out[k] = own;
  }
  return nA;
}

/**
 * Appends the bits of the codes (A, 1) and (x, 2) of the side at `off` next to the partner side
 * at `poff` (whose attachment invariants stand in for the connectors); false when a label has no
 * partner or a centre is too large for the work arrays.
 */
export function nearBits(
  buf: Uint32Array,
  off: number,
  pbuf: Uint32Array,
  poff: number,
  out: number[],
  /** Given: receives the attachment atoms' radius-1 codes (attachTwoBits needs both sides'). */
  codes?: Uint32Array,
): boolean {
  let o = attachAt(buf, off);
  const nA = buf[o++];
  if (nA > attachCode.length) return false;
  for (let k = 0; k < nA; k++) {
    const inv = buf[o++];
    const m = buf[o++];
    if (m > pairs.length) return false;
    for (let e = 0; e < m; e++, o += 3) {
      const label = buf[o + 2];
      const value = label > 0 ? partnerInv(pbuf, poff, label) : buf[o + 1];
      if (value < 0) return false;
      insertPair(e, buf[o], value);
    }
    attachCode[k] = codeFrom(0, inv, m);
    out.push(attachCode[k] % NBITS);
  }
  if (codes) {
    if (nA > codes.length) return false;
    codes.set(attachCode.subarray(0, nA));
  }
  const nX = buf[o++];
  for (let k = 0; k < nX; k++) {
    const c1 = buf[o++];
    const m = buf[o++];
    if (m > pairs.length) return false;
    for (let e = 0; e < m; e++, o += 3)
      insertPair(e, buf[o], buf[o + 2] > 0 ? attachCode[buf[o + 2] - 1] : buf[o + 1]);
    out.push(codeFrom(1, c1, m) % NBITS);
  }
  return true;
}

/** Kinds of a neighbour's radius-1 code in a side's last section (ring-side.ts layout). */
export const CODE = 0;
export const OWN_ATTACH = 1;
export const PARTNER = 2;

/** The index of the partner side's attachment atom bonded to its connector `label`, or −1. */
function attachOfLabel(buf: Uint32Array, off: number, label: number): number {
  let o = attachAt(buf, off);
  const nA = buf[o++];
  for (let k = 0; k < nA; k++) {
    o++;
    const m = buf[o++];
    for (let e = 0; e < m; e++, o += 3) if (buf[o + 2] === label) return k;
  }
  return -1;
}

/**
 * Appends the bits of the (A, 2) codes of the side at `off` next to the partner side at `poff`,
 * from both sides' attachment codes (nearBits `codes`). RDKit may drop such an environment as
 * redundant, so a bit here may be missing from the product, but the product has no (A, 2) bit
 * other than these. False when a label has no partner or a centre is too large.
 */
export function attachTwoBits(
  buf: Uint32Array,
  off: number,
  codes: Uint32Array,
  pbuf: Uint32Array,
  poff: number,
  pcodes: Uint32Array,
  out: number[],
): boolean {
  // Past the attachment and near sections.
  let o = attachAt(buf, off);
  const nA = buf[o++];
  for (let k = 0; k < nA; k++) o += 2 + 3 * buf[o + 1];
  const nX = buf[o++];
  for (let k = 0; k < nX; k++) o += 2 + 3 * buf[o + 1];
  for (let k = 0; k < nA; k++) {
    const m = buf[o++];
    if (m > MAX_PAIRS) return false;
    for (let e = 0; e < m; e++, o += 3) {
      const kind = buf[o + 1];
      let value = buf[o + 2];
      if (kind === OWN_ATTACH) value = codes[value];
      else if (kind === PARTNER) {
        const at = attachOfLabel(pbuf, poff, value);
        if (at < 0) return false;
        value = pcodes[at];
      }
      insertPair(e, buf[o], value);
    }
    out.push(codeFrom(1, codes[k], m) % NBITS);
  }
  return true;
}
