import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import {
  connectorLabels,
  fixConnectors,
  parseSynthonText,
  SynthonFormatError,
} from '../../../engine/synthons/parse.ts';
import { groupReactions } from '../../../engine/synthons/reactions.ts';

const fixture = (name: string): string =>
  readFileSync(new URL(`../../fixtures/synthons/${name}`, import.meta.url), 'utf8');
const source = (name: string): string =>
  readFileSync(new URL(`../../../catalogs/spaces/sources/${name}`, import.meta.url), 'utf8');

describe('parseSynthonText', () => {
  it('reads the synton# header with tabs (and runs of tabs)', () => {
    const p = parseSynthonText(source('amide_space.txt'));
    expect(p.header).toBe('synton#');
    expect(p.separator).toBe('tab');
    expect(p.rejects).toEqual([]);
    expect(p.lines).toHaveLength(7);
    expect(p.lines[3]).toMatchObject({ line: 5, smiles: 'CCCCC(=O)[1*]', synthonId: '1-4', rawSlot: 0 });
  });

  it('reads CRLF files the same', () => {
    const a = parseSynthonText(source('amide_space.txt')).lines;
    const b = parseSynthonText(fixture('amide_space_dos.txt')).lines;
    expect(b.map((l) => l.smiles)).toEqual(a.map((l) => l.smiles));
  });

  it('reads the 5-column release header, space-separated, with atom-mapped connectors', () => {
    const p = parseSynthonText(fixture('amino_acid.txt'));
    expect(p.separator).toBe('whitespace');
    expect(p.lines.map((l) => [l.synthonId, l.rawSlot, l.reactionId])).toEqual([
      ['f1', 1, 'test'],
      ['f2', 2, 'test'],
    ]);
  });

  it('reads the Chemspace CSV form, skipping the licence comment and rewriting [U]/[Np]/[Pu]', () => {
    const p = parseSynthonText(source('Syntons_5567.csv'));
    expect(p.header).toBe('synton_role');
    expect(p.separator).toBe('comma');
    expect(p.lines).toHaveLength(5567);
    expect(p.rejects).toEqual([]);
    expect(p.lines.every((l) => !/\[(U|Np|Pu|Am)\]/.test(l.smiles))).toBe(true);
    expect(new Set(p.lines.map((l) => l.rawSlot))).toEqual(new Set([1, 2, 3]));
  });

  it('rejects bad lines with their line numbers and reasons', () => {
    const text = [
      '# comment',
      'SMILES,synton_id,synton#,reaction_id',
      'CC[1*],a,0,r1',
      'CC[1*],b,x,r1',
      'CC[1*],c;d,0,r1',
      'CC[1*],a,0,r1',
      'CC[1*],e,0',
    ].join('\n');
    const p = parseSynthonText(text);
    expect(p.lines.map((l) => l.line)).toEqual([3]);
    expect(p.rejects.map((r) => r.line)).toEqual([4, 5, 6, 7]);
    expect(p.rejects[0].reason).toMatch(/synton#/);
    expect(p.rejects[1].reason).toMatch(/may not contain ";"/);
    expect(p.rejects[2].reason).toMatch(/duplicate/);
    expect(p.rejects[3].reason).toMatch(/expected 4 or 5 fields, found 3/);
  });

  it('refuses a file without a header, naming the line', () => {
    expect(() => parseSynthonText('CC[1*]\ta\t0\tr1\n')).toThrow(SynthonFormatError);
    expect(() => parseSynthonText('CC[1*]\ta\t0\tr1\n')).toThrow(/line 1/);
  });

  it('rewrites vendor connectors and lists labels', () => {
    expect(fixConnectors('[U]CC[Np].[Pu][Am]')).toBe('[1*]CC[2*].[3*][4*]');
    expect(connectorLabels('OC(=O)C(N([1*:1]))C[2*]')).toEqual([1, 2]);
  });
});

describe('groupReactions', () => {
  it('compacts slots, flags ring-forming reactions', () => {
    const tri = groupReactions(parseSynthonText(source('triazole_space.txt')).lines);
    expect(tri.reactions[0].ringForming).toBe(true);
    const amide = groupReactions(parseSynthonText(source('amide_space.txt')).lines);
    expect(amide.reactions[0].ringForming).toBe(false);
    const aa = groupReactions(parseSynthonText(fixture('amino_acid.txt')).lines);
    expect(aa.reactions[0].rawSlots).toEqual([1, 2]);
    expect(aa.reactions[0].slots.map((s) => s.length)).toEqual([1, 1]);
  });

  it('rejects every line of a reaction that cannot make products', () => {
    const text = 'SMILES synton_id synton# reaction_id\nCC[1*] a 0 r1\nNC[1*] b 0 r1\nOC[2*] c 1 r2\n';
    const g = groupReactions(parseSynthonText(text).lines);
    expect(g.reactions).toEqual([]);
    expect(g.rejects.map((r) => [r.line, r.reason])).toEqual([
      [2, 'reaction r1: has a single synthon set (a product needs at least 2)'],
      [3, 'reaction r1: has a single synthon set (a product needs at least 2)'],
      [4, 'reaction r2: has a single synthon set (a product needs at least 2)'],
    ]);
  });
});
