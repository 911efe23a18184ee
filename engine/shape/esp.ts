/**
 * Electrostatic similarity exactly as espsim computes it with `integrate="gauss"` (Heid, Bolcato,
 * Boström 2022; hesther/espsim `GaussInt`): every atom is a point charge, the Coulomb kernel 1/r is
 * fitted by three Gaussians, so the overlap integral of two molecules' potentials is a sum over atom
 * pairs of analytic two-centre Gaussian integrals, q_i q_j Σ_kl a_kl exp(b_kl r_ij²), with espsim's
 * fixed symmetric 3×3 coefficient matrices. Hydrogens are included (espsim requires them).
 */

// espsim's coefficient matrices, upper triangle; off-diagonal terms appear twice in its 3×3 sum.
const A = [15.90600036, 3.9534831, 17.61453176, 5.21580206, 1.91045387, 238.75820253];
const B = [-0.02495, -0.04539319, -0.00247124, -0.2513, -0.00258662, -0.0013];
const MULT = [1, 2, 2, 1, 2, 1];
const TERMS = A.map((a, i) => a * MULT[i]);

/** espsim's kernel: one atom pair's contribution to ⟨A|B⟩ per unit charge product, at squared distance d2 (Å²). */
export function espKernel(d2: number): number {
  let s = 0;
  for (let k = 0; k < 6; k++) s += TERMS[k] * Math.exp(B[k] * d2);
  return s;
}

/** ⟨A|B⟩: the overlap integral of the two potentials (coordinates flat xyz in Å, charges per atom). */
export function espIntegral(
  xa: ArrayLike<number>,
  qa: ArrayLike<number>,
  xb: ArrayLike<number>,
  qb: ArrayLike<number>,
): number {
  const na = qa.length;
  const nb = qb.length;
  let sum = 0;
  for (let i = 0; i < na; i++) {
    const qi = qa[i];
    if (qi === 0) continue;
    const x = xa[3 * i];
    const y = xa[3 * i + 1];
    const z = xa[3 * i + 2];
    let row = 0;
    for (let j = 0; j < nb; j++) {
      const dx = x - xb[3 * j];
      const dy = y - xb[3 * j + 1];
      const dz = z - xb[3 * j + 2];
      const d2 = dx * dx + dy * dy + dz * dz;
      row +=
        qb[j] *
        (TERMS[0] * Math.exp(B[0] * d2) +
          TERMS[1] * Math.exp(B[1] * d2) +
          TERMS[2] * Math.exp(B[2] * d2) +
          TERMS[3] * Math.exp(B[3] * d2) +
          TERMS[4] * Math.exp(B[4] * d2) +
          TERMS[5] * Math.exp(B[5] * d2));
    }
    sum += qi * row;
  }
  return sum;
}

export const ESP_METRICS = ['carbo', 'tanimoto'] as const;
export type EspMetric = (typeof ESP_METRICS)[number];

/**
 * espsim's `SimilarityMetric` over the three integrals: Carbo ⟨AB⟩/√(⟨AA⟩⟨BB⟩) in [-1, 1] (espsim's
 * default) or Tanimoto ⟨AB⟩/(⟨AA⟩+⟨BB⟩−⟨AB⟩) in [-1/3, 1]. Self integrals may be passed in when cached.
 */
export function espSimilarity(
  xa: ArrayLike<number>,
  qa: ArrayLike<number>,
  xb: ArrayLike<number>,
  qb: ArrayLike<number>,
  metric: EspMetric = 'carbo',
  selfA = espIntegral(xa, qa, xa, qa),
  selfB = espIntegral(xb, qb, xb, qb),
): number {
  const ab = espIntegral(xa, qa, xb, qb);
  // A molecule without charges has no potential: nothing to compare (espsim would divide by zero).
  if (selfA <= 0 || selfB <= 0) return 0;
  // A self-pair's ⟨AB⟩ and √(⟨AA⟩⟨BB⟩) differ in the last bits (1.0000000000000049 was served):
  // clamp to the index's range so no score past 1 reaches a response.
  const s = metric === 'carbo' ? ab / Math.sqrt(selfA * selfB) : ab / (selfA + selfB - ab);
  return Math.min(1, Math.max(metric === 'carbo' ? -1 : -1 / 3, s));
}
