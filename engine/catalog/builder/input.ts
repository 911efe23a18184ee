/**
 * Streams input records (SMILES, id, optional price) from CSV, TSV or SMILES files, gzipped or not,
 * line by line: the file is never loaded whole.
 */
import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { createGunzip } from 'node:zlib';
import { CatalogError } from '../errors.ts';

export interface InputRecord {
  /** 1-based line number in the (decompressed) file. */
  line: number;
  smiles: string;
  id: string;
  /** NaN when absent or not a number. */
  price: number;
  /** The raw line, for rejects. */
  raw: string;
}

export interface InputOptions {
  /** Column name; for headerless .smi files a 0-based position ("0"). */
  smilesCol: string;
  idCol: string;
  priceCol?: string;
  /** Field delimiter; default by extension: .tsv tab, .csv comma, .smi/.txt whitespace. */
  delimiter?: string;
  /** Whether the first line is a header; default: false for .smi, true otherwise. */
  header?: boolean;
  /** Stop after this many data rows. */
  limit?: number;
}

/** The file name without .gz, lower-cased, for format detection. */
const baseName = (path: string): string => path.toLowerCase().replace(/\.gz$/, '');

function splitter(path: string, delimiter?: string): (line: string) => string[] {
  const d = delimiter === 'tab' || delimiter === '\\t' ? '\t' : delimiter;
  const name = baseName(path);
  if (d === undefined && (name.endsWith('.smi') || name.endsWith('.txt') || name.endsWith('.ism')))
    return (l) => l.trim().split(/\s+/);
  const sep = d ?? (name.endsWith('.tsv') ? '\t' : ',');
  return (line) => (line.includes('"') ? splitQuoted(line, sep) : line.split(sep));
}

/** RFC 4180-style split of one line (quotes, doubled quotes); fields never span lines here. */
export function splitQuoted(line: string, sep: string): string[] {
  const out: string[] = [];
  let cur = '';
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const ch = line[i];
    if (quoted) {
      if (ch === '"' && line[i + 1] === '"') {
        cur += '"';
        i++;
      } else if (ch === '"') quoted = false;
      else cur += ch;
    } else if (ch === '"') quoted = true;
    else if (line.startsWith(sep, i)) {
      out.push(cur);
      cur = '';
      i += sep.length - 1;
    } else cur += ch;
  }
  out.push(cur);
  return out;
}

async function isGzip(path: string): Promise<boolean> {
  const fh = await open(path, 'r');
  try {
    const { bytesRead, buffer } = await fh.read(Buffer.alloc(2), 0, 2, 0);
    return bytesRead === 2 && buffer[0] === 0x1f && buffer[1] === 0x8b;
  } finally {
    await fh.close();
  }
}

/**
 * Yields the data rows of an input file in order. Throws CatalogError('catalog_build') when a named
 * column is not in the header. Rows too short to hold the SMILES column are yielded with
 * smiles '' so that they end up in the rejects.
 */
export async function* readInputRecords(path: string, opts: InputOptions): AsyncGenerator<InputRecord> {
  const split = splitter(path, opts.delimiter);
  const hasHeader = opts.header ?? !/\.(smi|ism)$/.test(baseName(path));
  let stream: NodeJS.ReadableStream = createReadStream(path);
  if (await isGzip(path)) stream = stream.pipe(createGunzip());
  const lines = createInterface({ input: stream, crlfDelay: Infinity });
  let lineNo = 0;
  let count = 0;
  let cols: { smiles: number; id: number; price: number } | undefined;
  const position = (name: string | undefined, header: string[] | undefined): number => {
    if (name === undefined) return -1;
    if (header) {
      const i = header.indexOf(name);
      if (i >= 0) return i;
    }
    if (/^\d+$/.test(name)) return Number(name);
    throw new CatalogError(
      'catalog_build',
      `column ${JSON.stringify(name)} not found in ${path}; header: ${header?.join(', ') ?? '(none)'}`,
    );
  };
  try {
    for await (const raw of lines) {
      lineNo++;
      if (!cols) {
        const header = hasHeader ? split(raw).map((h) => h.trim()) : undefined;
        cols = {
          smiles: position(opts.smilesCol, header),
          id: position(opts.idCol, header),
          price: position(opts.priceCol, header),
        };
        if (hasHeader) continue;
      }
      if (raw.trim() === '') continue;
      if (opts.limit !== undefined && count >= opts.limit) break;
      count++;
      const f = split(raw);
      const price = cols.price >= 0 ? Number(f[cols.price]) : NaN;
      yield {
        line: lineNo,
        smiles: (f[cols.smiles] ?? '').trim(),
        id: (f[cols.id] ?? '').trim(),
        price: price > 0 ? price : NaN,
        raw,
      };
    }
  } finally {
    lines.close();
    (stream as unknown as { destroy?: () => void }).destroy?.();
  }
}
