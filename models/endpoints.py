"""The 22 ADMET endpoints: service key, TDC dataset, task, TDC metric, training transform, units."""
from __future__ import annotations

from typing import NamedTuple


class Endpoint(NamedTuple):
    key: str          # property key served by the API (interface.md names, with the source tag)
    dataset: str      # TDC dataset name (file models/data/<dataset>.csv.gz)
    task: str         # "regression" | "binary"
    metric: str       # TDC admet_group metric: mae | spearman | auroc | auprc
    log10: bool       # trained on log10(y); the ONNX graph exponentiates back to `units`
    units: str


ENDPOINTS: tuple[Endpoint, ...] = (
    Endpoint("caco2_wang", "Caco2_Wang", "regression", "mae", False, "log10(Papp / (cm/s))"),
    Endpoint("clearance_hepatocyte_az", "Clearance_Hepatocyte_AZ", "regression", "spearman", True, "uL/min/10^6 cells"),
    Endpoint("clearance_microsome_az", "Clearance_Microsome_AZ", "regression", "spearman", True, "uL/min/mg protein"),
    Endpoint("half_life_obach", "Half_Life_Obach", "regression", "spearman", True, "hours"),
    Endpoint("ld50_zhu", "LD50_Zhu", "regression", "mae", False, "-log10(mol/kg)"),
    Endpoint("lipophilicity_astrazeneca", "Lipophilicity_AstraZeneca", "regression", "mae", False, "logD7.4"),
    Endpoint("ppbr_az", "PPBR_AZ", "regression", "mae", False, "% bound"),
    Endpoint("solubility_aqsoldb", "Solubility_AqSolDB", "regression", "mae", False, "log10(mol/L)"),
    Endpoint("vdss_lombardo", "VDss_Lombardo", "regression", "spearman", True, "L/kg"),
    Endpoint("ames", "AMES", "binary", "auroc", False, "probability"),
    Endpoint("bbb_martins", "BBB_Martins", "binary", "auroc", False, "probability"),
    Endpoint("bioavailability_ma", "Bioavailability_Ma", "binary", "auroc", False, "probability"),
    Endpoint("cyp2c9_substrate_carbonmangels", "CYP2C9_Substrate_CarbonMangels", "binary", "auprc", False, "probability"),
    Endpoint("cyp2c9_veith", "CYP2C9_Veith", "binary", "auprc", False, "probability"),
    Endpoint("cyp2d6_substrate_carbonmangels", "CYP2D6_Substrate_CarbonMangels", "binary", "auprc", False, "probability"),
    Endpoint("cyp2d6_veith", "CYP2D6_Veith", "binary", "auprc", False, "probability"),
    Endpoint("cyp3a4_substrate_carbonmangels", "CYP3A4_Substrate_CarbonMangels", "binary", "auroc", False, "probability"),
    Endpoint("cyp3a4_veith", "CYP3A4_Veith", "binary", "auprc", False, "probability"),
    Endpoint("dili", "DILI", "binary", "auroc", False, "probability"),
    Endpoint("herg", "hERG", "binary", "auroc", False, "probability"),
    Endpoint("hia_hou", "HIA_Hou", "binary", "auroc", False, "probability"),
    Endpoint("pgp_broccatelli", "Pgp_Broccatelli", "binary", "auroc", False, "probability"),
)
