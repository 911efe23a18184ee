"""The reference scores, written from their definitions (independent of our TypeScript code).

- ESP: espsim's `GaussInt` (hesther/espsim, electrostatics.py): the Coulomb kernel 1/r fitted by three
  Gaussians, so the overlap of two point-charge potentials is sum_ij q_i q_j sum_k a_k exp(b_k r_ij^2)
  with the fixed 3x3 coefficient matrices below (values of the espsim source). Carbo and Tanimoto
  as in espsim's `SimilarityMetric`.
- Gaussian shape: first-order Grant-Pickup overlap (every atom a Gaussian of height p = 2.7 whose
  integral is the atom's sphere volume; Bondi radii as RDKit's PubChem shape code), summed over atom
  pairs. Tanimoto = O_AB / (O_AA + O_BB - O_AB).
"""
import numpy as np

ESP_A = np.array([[15.90600036, 3.9534831, 17.61453176],
                  [3.9534831, 5.21580206, 1.91045387],
                  [17.61453176, 1.91045387, 238.75820253]]).flatten()
ESP_B = np.array([[-0.02495, -0.04539319, -0.00247124],
                  [-0.04539319, -0.2513, -0.00258662],
                  [-0.00247124, -0.00258662, -0.0013]]).flatten()

# Bondi radii (Mantina et al. 2009 Table 12 for the main-group elements) as used by RDKit's PubChem shape.
BONDI = {1: 1.10, 5: 1.92, 6: 1.70, 7: 1.55, 8: 1.52, 9: 1.47, 14: 2.10, 15: 1.80, 16: 1.80, 17: 1.75,
         34: 1.90, 35: 1.83, 53: 1.98}
P = 2.7
KAPPA = np.pi / ((4 * np.pi / (3 * P)) ** (2 / 3))


def esp_integral(xa, qa, xb, qb):
    d2 = ((xa[:, None, :] - xb[None, :, :]) ** 2).sum(-1).reshape(-1)
    qq = (qa[:, None] * qb[None, :]).reshape(-1)
    return float(((ESP_A[:, None] * np.exp(d2[None, :] * ESP_B[:, None])).sum(0) * qq).sum())


def esp_scores(xa, qa, xb, qb):
    aa, bb, ab = esp_integral(xa, qa, xa, qa), esp_integral(xb, qb, xb, qb), esp_integral(xa, qa, xb, qb)
    return ab / np.sqrt(aa * bb), ab / (aa + bb - ab)


def gaussians(x, z, hydrogens):
    sel = np.ones(len(z), bool) if hydrogens else z > 1
    return x[sel], KAPPA / np.array([BONDI[int(k)] for k in z[sel]]) ** 2


def overlap(ga, gb):
    (xa, aa), (xb, ab) = ga, gb
    d2 = ((xa[:, None, :] - xb[None, :, :]) ** 2).sum(-1)
    s = aa[:, None] + ab[None, :]
    return float((P * P * (np.pi / s) ** 1.5 * np.exp(-aa[:, None] * ab[None, :] * d2 / s)).sum())


def shape_tanimoto(xa, za, xb, zb, hydrogens=False):
    ga, gb = gaussians(xa, za, hydrogens), gaussians(xb, zb, hydrogens)
    o = overlap(ga, gb)
    return o / (overlap(ga, ga) + overlap(gb, gb) - o)
