import { describe, expect, it } from 'vitest';
import { auroc, ef, efMax, roce } from '../../../bench/shape/vs-metrics.ts';

// Hand-worked rankings (scores high → low); expected values counted by hand, not by the code.
describe('virtual-screening figures', () => {
  it('AUROC counts each active beating each decoy, ties as half', () => {
    // actives at 0.9 and 0.5, decoys at 0.7, 0.5, 0.1: the 0.9 active beats 3 decoys, the 0.5
    // active beats 0.1, ties 0.5 (half) and loses to 0.7 → (3 + 1.5) / 6.
    const scores = [0.9, 0.7, 0.5, 0.5, 0.1];
    const active = [true, false, true, false, false];
    expect(auroc(scores, active)).toBeCloseTo(4.5 / 6, 12);
    expect(auroc([1, 0.5, 0.2], [true, false, false])).toBe(1);
    expect(auroc([0.1, 0.5, 0.2], [true, false, false])).toBe(0);
  });

  it('AUROC by ranks equals the pairwise count on a random library', () => {
    let seed = 7;
    const rnd = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const scores = Array.from({ length: 300 }, () => Math.round(rnd() * 40) / 40); // many ties
    const active = scores.map(() => rnd() < 0.2);
    let wins = 0;
    let pairs = 0;
    scores.forEach((a, i) =>
      scores.forEach((d, j) => {
        if (!active[i] || active[j]) return;
        pairs++;
        wins += a > d ? 1 : a === d ? 0.5 : 0;
      }),
    );
    expect(auroc(scores, active)).toBeCloseTo(wins / pairs, 12);
  });

  it('EF1% of 200 molecules looks at the top 2; a tie does not favour the active', () => {
    const scores = Array.from({ length: 200 }, (_, i) => 1 - i / 200);
    const active = scores.map((_, i) => i === 1 || i === 150); // 2 actives, one in the top 2
    expect(ef(scores, active, 0.01)).toBeCloseTo(0.5 / (2 / 200), 12); // 50
    expect(efMax(200, 2, 0.01)).toBe(100);
    const tied = [...scores];
    tied[1] = tied[2] = 0.999; // active 1 tied with decoy 2
    expect(ef(tied, active, 0.01)).toBeCloseTo(50, 12); // library order breaks the tie
    const after = [...active];
    after[1] = false;
    after[2] = true; // the active is second of the tied pair: out of the top 2
    expect(ef(tied, after, 0.01)).toBe(0);
  });

  it('ROCE1% is the active fraction found before 1 % of the decoys, over 0.01', () => {
    // 3 actives, 200 decoys; ranked: active, decoy, active, decoy, … → at the 2nd decoy (1 % of
    // 200) two actives of three are found: (2/3) / (2/200).
    const active = [true, false, true, false, true, ...new Array<boolean>(198).fill(false)];
    const scores = active.map((_, i) => 1000 - i);
    expect(roce(scores, active, 0.01)).toBeCloseTo(2 / 3 / 0.01, 9);
  });
});
