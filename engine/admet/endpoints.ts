/**
 * The 22 predicted ADMET properties, keyed as the API's property-range keys (interface.md), in
 * that table's order. One ONNX model per key lives in models/onnx/<key>.onnx.
 */
export const ADMET_ENDPOINTS = [
  'caco2_wang',
  'clearance_hepatocyte_az',
  'clearance_microsome_az',
  'half_life_obach',
  'ld50_zhu',
  'lipophilicity_astrazeneca',
  'ppbr_az',
  'solubility_aqsoldb',
  'vdss_lombardo',
  'ames',
  'bbb_martins',
  'bioavailability_ma',
  'cyp2c9_substrate_carbonmangels',
  'cyp2c9_veith',
  'cyp2d6_substrate_carbonmangels',
  'cyp2d6_veith',
  'cyp3a4_substrate_carbonmangels',
  'cyp3a4_veith',
  'dili',
  'herg',
  'hia_hou',
  'pgp_broccatelli',
] as const;

export type AdmetEndpoint = (typeof ADMET_ENDPOINTS)[number];
