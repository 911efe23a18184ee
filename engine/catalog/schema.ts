/**
 * The catalog format, declared once: format version, manifest shape, shard columns and the Arrow
 * schema (with self-describing metadata). Readers reject anything that does not match.
 */
import {
  Field,
  FixedSizeBinary,
  Float32,
  Float64,
  Schema,
  Uint16,
  Uint32,
  Utf8,
  type DataType,
} from 'apache-arrow';
import { DESCRIPTOR_NAMES } from '../chem/descriptors.ts';
import { FP_BYTES, MORGAN_FP } from '../chem/fingerprint.ts';
import { ADMET_ENDPOINTS } from '../admet/endpoints.ts';
import type { Catalog3dInfo } from './three-d-schema.ts';

/** Format version written into every manifest and shard; readers reject others. */
export const CATALOG_FORMAT = 'molsearch-catalog/1';
export const MANIFEST_FILE = 'manifest.json';
/** Default maximum rows per shard. */
export const DEFAULT_SHARD_ROWS = 65_536;

/** The 22 predicted ADMET columns (TDC ADMET group endpoints), in the order of the spec's table; one list, owned by engine/admet. */
export const ADMET_NAMES = ADMET_ENDPOINTS;
export type AdmetName = (typeof ADMET_NAMES)[number];
/** Name of the per-row out-of-domain bitmask column (bit i = ADMET_NAMES[i]). */
export const ADMET_OOD_COLUMN = 'admet_ood';

export const CATALOG_KINDS = ['enumerated'] as const;
export type CatalogKind = (typeof CATALOG_KINDS)[number];

export interface ColumnSpec {
  name: string;
  /** Arrow type as text: utf8, fixed_size_binary[256], uint16, uint32, float64, float32. */
  type: 'utf8' | `fixed_size_binary[${number}]` | 'uint16' | 'uint32' | 'float64' | 'float32';
  nullable: boolean;
}

/** Shard columns in file order. */
export const COLUMNS: readonly ColumnSpec[] = [
  { name: 'product_id', type: 'utf8', nullable: false },
  { name: 'smiles', type: 'utf8', nullable: false },
  { name: 'fp', type: `fixed_size_binary[${FP_BYTES}]`, nullable: false },
  { name: 'popcount', type: 'uint16', nullable: false },
  ...DESCRIPTOR_NAMES.map((name) => ({ name, type: 'float64' as const, nullable: false })),
  { name: 'scaffold', type: 'utf8', nullable: false },
  { name: 'price', type: 'float64', nullable: true },
  ...ADMET_NAMES.map((name) => ({ name, type: 'float32' as const, nullable: true })),
  // Applicability domain of the predictions: bit i set = endpoint ADMET_NAMES[i] out of domain;
  // null when the row has no predictions. Catalogs written before this column are still read.
  { name: ADMET_OOD_COLUMN, type: 'uint32', nullable: true },
];

/** The columns of catalogs written before the `admet_ood` column existed (still readable). */
export const COLUMNS_WITHOUT_OOD: readonly ColumnSpec[] = COLUMNS.filter((c) => c.name !== ADMET_OOD_COLUMN);

function arrowType(t: ColumnSpec['type']): DataType {
  if (t === 'utf8') return new Utf8();
  if (t === 'uint16') return new Uint16();
  if (t === 'uint32') return new Uint32();
  if (t === 'float64') return new Float64();
  if (t === 'float32') return new Float32();
  return new FixedSizeBinary(Number(/\[(\d+)\]/.exec(t)![1]));
}

/** Metadata keys stored on the Arrow schema of each shard. */
export const SCHEMA_METADATA_KEYS = {
  format: 'molsearch.format',
  fingerprint: 'molsearch.fingerprint',
  rdkit: 'molsearch.rdkit_version',
} as const;

/** The Arrow schema of a shard, with format, fingerprint and RDKit version as schema metadata. */
export function shardSchema(rdkitVersion: string): Schema {
  const metadata = new Map<string, string>([
    [SCHEMA_METADATA_KEYS.format, CATALOG_FORMAT],
    [SCHEMA_METADATA_KEYS.fingerprint, JSON.stringify(MORGAN_FP)],
    [SCHEMA_METADATA_KEYS.rdkit, rdkitVersion],
  ]);
  return new Schema(
    COLUMNS.map((c) => new Field(c.name, arrowType(c.type), c.nullable)),
    metadata,
  );
}

export interface ShardInfo {
  file: string;
  rows: number;
  popcount_min: number;
  popcount_max: number;
  sha256: string;
}

/** Who publishes a catalog and which release it is: the descriptive part of a manifest. */
export type CatalogMeta = Pick<
  CatalogManifest,
  'id' | 'name' | 'vendor' | 'website' | 'contact' | 'release' | 'license' | 'source'
>;

export interface CatalogManifest {
  format: typeof CATALOG_FORMAT;
  id: string;
  name: string;
  vendor: string;
  website: string;
  contact: string;
  kind: CatalogKind;
  release: string;
  /** The data's licence and where it comes from (`/license_information`); absent when not given. */
  license?: string;
  source?: string;
  created_at: string;
  counts: { input_rows: number; molecules: number; rejected: number; duplicates: number };
  fingerprint: { kind: 'morgan'; radius: number; nBits: number; rdkit_version: string };
  columns: ColumnSpec[];
  /** ADMET model versions by column, or null when the ADMET columns are empty (all null). */
  models: Record<string, string> | null;
  shards: ShardInfo[];
  /** True when some row has a price (the build's `--price-col`); absent on catalogs built before. */
  priced?: boolean;
  /** Search types this catalog serves; absent = ['morgan'] (catalogs without a 3D stage). */
  search_types?: string[];
  /** The 3D stage's result (docs/catalog-format.md, "3D sidecars"); absent until it completed. */
  three_d?: Catalog3dInfo;
}
