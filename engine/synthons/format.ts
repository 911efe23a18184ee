/**
 * The synthon-space format on disk (docs/synthon-spaces.md): `manifest.json` plus one Arrow IPC
 * file per reaction and slot (`reactions/r<reaction>-s<slot>.arrow`), one record batch each, so
 * the fingerprint columns are contiguous buffers readers view without copying.
 */
import { readFile, writeFile, rename } from 'node:fs/promises';
import { join } from 'node:path';
import {
  Binary,
  Field,
  FixedSizeBinary,
  makeData,
  RecordBatch,
  Schema,
  Struct,
  Table,
  tableFromIPC,
  tableToIPC,
  Uint16,
  Utf8,
  Uint32,
  type Data,
} from 'apache-arrow';
import { FP_BYTES, MORGAN_FP } from '../chem/fingerprint.ts';
import { SCREEN_BYTES } from './sss-screen.ts';

export const SPACE_FORMAT = 'molsearch-synthon-space';
/**
 * Version 2 added the substructure screen column `sss_screen` (sss-screen.ts). Version 1 spaces
 * are still read (their slots have no `screen`, and the search falls back to element counts).
 * Version 3 has the same columns; its builder rejects synthons with a radical atom
 * (synthon-chem.ts), so a rebuild does not reuse a v2 reaction that may hold them.
 */
export const SPACE_FORMAT_VERSION = 6;
/**
 * Version 4 added `ring_core` (ring-core.ts) for the synthons of ring-closing reactions. Version 5
 * has the same columns; in reactions with ring cores `guaranteed_fp` and `unstable_envs` hold the
 * ring-core bound (ring-bound.ts), so a rebuild does not reuse a v4 reaction with the weaker one.
 */
/**
 * Version 6 adds each ring-bound reaction's pair states (ring-pairs.ts, `ringPairs`), so its
 * searches ask RDKit nothing about pairs of cores.
 */
export const READABLE_FORMAT_VERSIONS: readonly number[] = [1, 2, 3, 4, 5, 6];

export interface SlotInfo {
  /** Compacted slot index (0-based). */
  slot: number;
  /** The slot number as written in the source file. */
  rawSlot: number;
  synthons: number;
  /** Connector labels the slot's synthons carry. */
  connectors: number[];
  /** Path relative to the space directory. */
  file: string;
}

export interface ReactionInfo {
  id: string;
  ringForming: boolean;
  slots: SlotInfo[];
  /** Product of the slot sizes. */
  products: number;
  /**
   * The slots' guaranteed and unstable columns hold the ring-core bound (ring-bound.ts, format 5):
   * tight enough for the exact walk, as join environments are.
   */
  ringBound?: boolean;
  /** Path of the reaction's ring-pair table (ring-pairs.ts, format 6), relative to the space. */
  ringPairs?: string;
}

export interface SpaceManifest {
  format: typeof SPACE_FORMAT;
  formatVersion: number;
  id: string;
  name: string;
  source: string;
  fingerprint: typeof MORGAN_FP;
  rdkitVersion: string;
  createdAt: string;
  counts: { reactions: number; synthons: number; products: number; rejected: number };
  reactions: ReactionInfo[];
}

/** Columns of one slot file. */
export interface SlotColumns {
  synthonIds: string[];
  /** SMILES with [n*] connectors. */
  smiles: string[];
  /** n × 256 bytes. */
  fps: Uint8Array;
  /** n × 256 bytes: the bits every product keeps (synthon-chem.ts). */
  guaranteed: Uint8Array;
  unstableEnvs: Uint16Array;
  heavyAtoms: Uint16Array;
  /** 1-based source line of each synthon. */
  lines: Uint32Array;
  /** Join environments (join-env.ts), '' where none; absent in spaces built before them. */
  joinEnv?: string[];
  /** n × SCREEN_BYTES: substructure screens (sss-screen.ts); absent in format-1 spaces. */
  screen?: Uint8Array;
  /**
   * Ring cores (ring-core.ts `encodeRingCore`): synthon i's bytes are data[offsets[i] ..
   * offsets[i + 1]), empty where the build made none (not a ring-closing reaction); absent
   * before format 4.
   */
  ringCores?: { data: Uint8Array; offsets: Int32Array };
}

const FIELDS = [
  new Field('synthon_id', new Utf8(), false),
  new Field('smiles', new Utf8(), false),
  new Field('fp', new FixedSizeBinary(FP_BYTES), false),
  new Field('guaranteed_fp', new FixedSizeBinary(FP_BYTES), false),
  new Field('unstable_envs', new Uint16(), false),
  new Field('heavy_atoms', new Uint16(), false),
  new Field('line', new Uint32(), false),
  new Field('join_env', new Utf8(), false),
  new Field('sss_screen', new FixedSizeBinary(SCREEN_BYTES), false),
  new Field('ring_core', new Binary(), false),
];

const encoder = new TextEncoder();

function utf8(values: string[]): Data {
  const offsets = new Int32Array(values.length + 1);
  const parts = values.map((v) => encoder.encode(v));
  parts.forEach((p, i) => (offsets[i + 1] = offsets[i] + p.length));
  const data = new Uint8Array(offsets[values.length]);
  parts.forEach((p, i) => data.set(p, offsets[i]));
  return makeData({ type: new Utf8(), length: values.length, valueOffsets: offsets, data });
}

/** One slot as Arrow IPC file bytes. */
export function encodeSlot(cols: SlotColumns): Uint8Array {
  const n = cols.synthonIds.length;
  const metadata = new Map([
    ['format', SPACE_FORMAT],
    ['format_version', String(SPACE_FORMAT_VERSION)],
    ['fingerprint', JSON.stringify(MORGAN_FP)],
  ]);
  const schema = new Schema(FIELDS, metadata);
  const children = [
    utf8(cols.synthonIds),
    utf8(cols.smiles),
    makeData({ type: new FixedSizeBinary(FP_BYTES), length: n, data: cols.fps }),
    makeData({ type: new FixedSizeBinary(FP_BYTES), length: n, data: cols.guaranteed }),
    makeData({ type: new Uint16(), length: n, data: cols.unstableEnvs }),
    makeData({ type: new Uint16(), length: n, data: cols.heavyAtoms }),
    makeData({ type: new Uint32(), length: n, data: cols.lines }),
    utf8(cols.joinEnv ?? new Array<string>(n).fill('')),
    makeData({
      type: new FixedSizeBinary(SCREEN_BYTES),
      length: n,
      data: cols.screen ?? new Uint8Array(n * SCREEN_BYTES).fill(0xff), // all bits: screens nothing out
    }),
    makeData({
      type: new Binary(),
      length: n,
      valueOffsets: cols.ringCores?.offsets ?? new Int32Array(n + 1),
      data: cols.ringCores?.data ?? new Uint8Array(0),
    }),
  ];
  const struct = makeData({ type: new Struct(FIELDS), length: n, nullCount: 0, children });
  return tableToIPC(new Table(schema, [new RecordBatch(schema, struct)]), 'file');
}

/** Reads one slot file written by `encodeSlot`; throws when it is not one. */
export function decodeSlot(bytes: Uint8Array): SlotColumns {
  const table = tableFromIPC(bytes);
  if (table.schema.metadata.get('format') !== SPACE_FORMAT) throw new Error('not a synthon-space slot file');
  const fixed = (name: string): Uint8Array => {
    const col = table.getChild(name);
    if (!col || col.data.length !== 1) throw new Error(`slot file: column ${name} missing or chunked`);
    const v = col.data[0].values as Uint8Array;
    // Searches read these as 32-bit words: keep them 4-byte aligned.
    return v.byteOffset % 4 === 0 ? v : v.slice();
  };
  const strings = (name: string): string[] => (table.getChild(name)?.toArray() ?? []) as string[];
  return {
    synthonIds: strings('synthon_id'),
    smiles: strings('smiles'),
    fps: fixed('fp'),
    guaranteed: fixed('guaranteed_fp'),
    unstableEnvs: table.getChild('unstable_envs')!.toArray() as Uint16Array,
    heavyAtoms: table.getChild('heavy_atoms')!.toArray() as Uint16Array,
    lines: table.getChild('line')!.toArray() as Uint32Array,
    joinEnv: table.getChild('join_env') ? strings('join_env') : undefined,
    screen: table.getChild('sss_screen') ? fixed('sss_screen') : undefined,
    ringCores: binary(table.getChild('ring_core')?.data),
  };
}

function binary(data: readonly Data[] | undefined): SlotColumns['ringCores'] {
  if (!data || data.length !== 1) return undefined;
  const d = data[0];
  const offsets = (d.valueOffsets as Int32Array).subarray(d.offset, d.offset + d.length + 1);
  return { data: d.values as Uint8Array, offsets };
}

/** The ring-core bytes of synthon i, or undefined when the space holds none for it. */
export function ringCoreBytes(cols: SlotColumns, i: number): Uint8Array | undefined {
  const c = cols.ringCores;
  if (!c) return undefined;
  const a = c.offsets[i];
  const b = c.offsets[i + 1];
  return b > a ? c.data.subarray(a, b) : undefined;
}

/** Writes a file atomically (temp name, then rename), so an interrupted build leaves no half file. */
export async function writeAtomic(path: string, bytes: Uint8Array | string): Promise<void> {
  const tmp = `${path}.tmp-${process.pid}`;
  await writeFile(tmp, bytes);
  await rename(tmp, path);
}

/** Reads and checks a space manifest. */
export async function readManifest(dir: string): Promise<SpaceManifest> {
  const m = JSON.parse(await readFile(join(dir, 'manifest.json'), 'utf8')) as SpaceManifest;
  if (m.format !== SPACE_FORMAT || !READABLE_FORMAT_VERSIONS.includes(m.formatVersion))
    throw new Error(`${dir}: not a ${SPACE_FORMAT} v${READABLE_FORMAT_VERSIONS.join('/v')} directory`);
  if (m.fingerprint?.kind !== MORGAN_FP.kind || m.fingerprint.nBits !== MORGAN_FP.nBits)
    throw new Error(
      `${dir}: fingerprint ${JSON.stringify(m.fingerprint)} is not ${JSON.stringify(MORGAN_FP)}`,
    );
  return m;
}
