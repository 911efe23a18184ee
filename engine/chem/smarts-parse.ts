/**
 * Syntax half of smarts-lite: parses a connected SMARTS pattern into atom / bond expression trees
 * and the pattern's tree shape. Semantics (what each primitive tests) live in smarts-lite.ts.
 *
 * Atom primitives: `*`, `A`, `a`, elements (uppercase aliphatic, lowercase aromatic; two-letter
 * symbols read greedily, as RDKit does: `Cl`, `Br`), `#n`, `H<n>`, `D<n>`, `X<n>`, `v<n>`, `R<n>`,
 * `r<n>`, `x<n>`, charges (`+`, `++`, `+n`, `-`, `-n`, `+0`, `-0`), `[H]` (a hydrogen atom) and
 * recursive `$(...)`. Bond primitives: `-`, `=`, `#`, `:`, `~`, `@`. Logic: `!`, `&` or adjacency,
 * `,`, `;` (in that precedence). Not supported (throws): chirality, isotopes, directional bonds,
 * `.` components, `%nn` ring closures.
 */

export interface Expr {
  op: 'and' | 'or' | 'not' | 'prim';
  kids?: Expr[];
  /** Primitive kind: '*', 'A', 'a', 'Z' (aliphatic element), 'z' (aromatic element), '#', 'H', 'D',
   * 'X', 'v', '+', 'R', 'r', 'x', '$' for atoms; '-', '=', '#', ':', '~', '@', 'default' for bonds. */
  k?: string;
  /** Its number (-1: none given, for R / r / x). */
  v?: number;
  /** Recursive SMARTS of a '$' primitive. */
  sub?: ParsedSmarts;
}

export interface ParsedSmarts {
  smarts: string;
  /** Atom expressions in SMARTS order; atom 0 is the root. */
  atoms: Expr[];
  /** Pattern parent of each atom (-1 for the root) and the bond expression to it. */
  parent: number[];
  bonds: Expr[];
  /** Ring closures: [later atom, earlier atom, bond expression]. */
  closures: [number, number, Expr][];
}

const ELEMENTS = (
  'H He Li Be B C N O F Ne Na Mg Al Si P S Cl Ar K Ca Sc Ti V Cr Mn Fe Co Ni Cu Zn Ga Ge As Se Br Kr ' +
  'Rb Sr Y Zr Nb Mo Tc Ru Rh Pd Ag Cd In Sn Sb Te I Xe Cs Ba La Ce Pr Nd Pm Sm Eu Gd Tb Dy Ho Er Tm Yb Lu Hf Ta W Re ' +
  'Os Ir Pt Au Hg Tl Pb Bi Po At Rn Fr Ra Ac Th Pa U Np Pu Am Cm Bk Cf Es Fm Md No Lr'
).split(' ');
const Z = new Map(ELEMENTS.map((s, i) => [s, i + 1]));
const AROMATIC = new Map([
  ['c', 6],
  ['n', 7],
  ['o', 8],
  ['s', 16],
  ['p', 15],
  ['b', 5],
  ['se', 34],
  ['as', 33],
]);
const ORGANIC = ['Cl', 'Br', 'B', 'C', 'N', 'O', 'P', 'S', 'F', 'I'];
const ATOM_START = '[*ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

function prim(k: string, v = 0, sub?: ParsedSmarts): Expr {
  return { op: 'prim', k, v, sub };
}

class Reader {
  s: string;
  i = 0;
  constructor(s: string) {
    this.s = s;
  }
  peek(): string {
    return this.s[this.i] ?? '';
  }
  fail(what: string): never {
    throw new Error(`smarts-lite: ${what} at ${this.i} in ${this.s}`);
  }
  int(def: number): number {
    const start = this.i;
    while (this.peek() >= '0' && this.peek() <= '9') this.i++;
    return this.i === start ? def : Number(this.s.slice(start, this.i));
  }
}

/** Logical expression with SMARTS precedence: `!` > `&` / adjacency > `,` > `;`. */
function parseExpr(r: Reader, primitive: (r: Reader, first: boolean) => Expr, stop: string): Expr {
  let first = true;
  const unary = (): Expr => {
    if (r.peek() === '!') {
      r.i++;
      return { op: 'not', kids: [unary()] };
    }
    const n = primitive(r, first);
    first = false;
    return n;
  };
  const level = (sep: string, next: () => Expr, op: 'and' | 'or', adjacency: boolean): Expr => {
    const kids = [next()];
    for (;;) {
      const c = r.peek();
      if (c === '') break;
      if (c === sep) r.i++;
      else if (!adjacency || stop.includes(c) || c === ',' || c === ';') break;
      kids.push(next());
    }
    return kids.length === 1 ? kids[0] : { op, kids };
  };
  return level(';', () => level(',', () => level('&', unary, 'and', true), 'or', false), 'and', false);
}

function atomPrimitive(r: Reader, first: boolean): Expr {
  const c = r.peek();
  r.i++;
  if (c === '$' && r.peek() === '(') {
    const start = r.i + 1;
    let depth = 0;
    do {
      if (r.peek() === '(') depth++;
      else if (r.peek() === ')') depth--;
      else if (r.peek() === '') r.fail('unbalanced $(');
      r.i++;
    } while (depth > 0);
    return prim('$', 0, parseSmarts(r.s.slice(start, r.i - 1)));
  }
  if (c === '#') {
    const z = r.int(-1);
    return z < 0 ? r.fail('#n without n') : prim('#', z);
  }
  if (c === '*') return prim('*');
  if (c === '+' || c === '-') {
    const sign = c === '+' ? 1 : -1;
    if (r.peek() >= '0' && r.peek() <= '9') return prim('+', sign * r.int(0));
    let k = 1;
    while (r.peek() === c) {
      r.i++;
      k++;
    }
    return prim('+', sign * k);
  }
  if (c === 'H' && first && '+-]'.includes(r.peek())) return prim('#', 1); // [H], [H+]: a hydrogen atom
  if (c === 'H' || c === 'D' || c === 'X' || c === 'v') return prim(c, r.int(1));
  if (c === 'R' || c === 'r' || c === 'x') return prim(c, r.int(-1));
  const two = c + r.peek();
  if (r.peek() >= 'a' && r.peek() <= 'z' && Z.has(two)) {
    r.i++;
    return prim('Z', Z.get(two)!);
  }
  if (AROMATIC.has(two)) {
    r.i++;
    return prim('z', AROMATIC.get(two)!);
  }
  if (c === 'A' || c === 'a') return prim(c);
  if (Z.has(c)) return prim('Z', Z.get(c)!);
  if (AROMATIC.has(c)) return prim('z', AROMATIC.get(c)!);
  r.i--;
  return r.fail(`unsupported atom primitive '${c}'`);
}

function bondPrimitive(r: Reader): Expr {
  const c = r.peek();
  if (c === '' || !'-=#:~@'.includes(c)) r.fail(`unsupported bond primitive '${c}'`);
  r.i++;
  return prim(c);
}

/** Parses a connected SMARTS pattern; throws on syntax outside the supported subset. */
export function parseSmarts(smarts: string): ParsedSmarts {
  const r = new Reader(smarts);
  const out: ParsedSmarts = { smarts, atoms: [], parent: [], bonds: [], closures: [] };
  const open = new Map<string, [number, Expr | null]>();
  const branches: number[] = [];
  const DEFAULT = prim('default');
  let prev = -1;
  let bond: Expr | null = null;
  while (r.i < smarts.length) {
    const c = r.peek();
    if (c === '(') {
      branches.push(prev);
      r.i++;
    } else if (c === ')') {
      prev = branches.pop() ?? r.fail('unbalanced )');
      r.i++;
    } else if ('-=#:~@!&,;'.includes(c)) bond = parseExpr(r, bondPrimitive, ATOM_START + '()0123456789');
    else if (c >= '0' && c <= '9') {
      r.i++;
      const o = open.get(c);
      if (o) {
        out.closures.push([prev, o[0], bond ?? o[1] ?? DEFAULT]);
        open.delete(c);
      } else open.set(c, [prev, bond]);
      bond = null;
    } else {
      let e: Expr;
      if (c === '[') {
        r.i++;
        if (r.peek() >= '0' && r.peek() <= '9') r.fail('isotopes are not supported');
        e = parseExpr(r, atomPrimitive, ']');
        if (r.peek() !== ']') r.fail('expected ]');
        r.i++;
      } else {
        const sym =
          ORGANIC.find((s) => smarts.startsWith(s, r.i)) ??
          ('*Aabcnops'.includes(c) ? c : r.fail(`unexpected '${c}'`));
        r.i += sym.length;
        e =
          sym === '*' || sym === 'A' || sym === 'a'
            ? prim(sym)
            : Z.has(sym)
              ? prim('Z', Z.get(sym)!)
              : prim('z', AROMATIC.get(sym)!);
      }
      if (prev < 0 && out.atoms.length > 0) r.fail('disconnected patterns are not supported');
      out.atoms.push(e);
      out.parent.push(prev);
      out.bonds.push(bond ?? DEFAULT);
      prev = out.atoms.length - 1;
      bond = null;
    }
  }
  if (open.size || branches.length || bond) r.fail('unterminated pattern');
  return out;
}
