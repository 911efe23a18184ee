/**
 * `molsearch catalog build ...`: argument parsing for the catalog builder (bin/molsearch.ts calls
 * runCatalogBuild with the arguments after "catalog build").
 */
import { parseArgs } from 'node:util';
import { buildCatalog } from './build-catalog.ts';

export const CATALOG_BUILD_USAGE = `usage: molsearch catalog build --input FILE --out DIR --id ID --name NAME
       [--smiles-col smiles] [--id-col id] [--price-col COL] [--delimiter ',' | tab]
       [--vendor V] [--website URL] [--contact C] [--release R]
       [--license TEXT] [--source TEXT] [--threads N] [--limit N] [--shard-rows N]
       [--no-admet]   (skip the 22 ADMET predictions; they are computed by default)
FILE is .csv, .tsv or .smi (headerless: columns by position, e.g. --smiles-col 0 --id-col 1), optionally .gz.
A rerun with the same arguments resumes an interrupted build.`;

export interface CatalogBuildHooks {
  /** Runs after a successful build with the catalog directory (the CLI publishes it when S3_BUCKET is set). */
  afterBuild?(outDir: string): Promise<void>;
}

/** Runs the builder from CLI arguments; returns the process exit code (0 ok, 2 usage, 1 failure). */
export async function runCatalogBuild(argv: string[], hooks: CatalogBuildHooks = {}): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        input: { type: 'string' },
        out: { type: 'string' },
        id: { type: 'string' },
        name: { type: 'string' },
        'smiles-col': { type: 'string' },
        'id-col': { type: 'string' },
        'price-col': { type: 'string' },
        delimiter: { type: 'string' },
        vendor: { type: 'string' },
        website: { type: 'string' },
        contact: { type: 'string' },
        release: { type: 'string' },
        license: { type: 'string' },
        source: { type: 'string' },
        threads: { type: 'string' },
        limit: { type: 'string' },
        'shard-rows': { type: 'string' },
        'no-admet': { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    }));
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\n${CATALOG_BUILD_USAGE}\n`);
    return 2;
  }
  if (values.help) {
    process.stdout.write(`${CATALOG_BUILD_USAGE}\n`);
    return 0;
  }
  const missing = (['input', 'out', 'id'] as const).filter((k) => !values[k]);
  const int = (s: string | undefined): number | undefined =>
    s === undefined ? undefined : Number.parseInt(s, 10);
  if (
    missing.length ||
    [values.threads, values.limit, values['shard-rows']].some((s) => s !== undefined && !(Number(s) > 0))
  ) {
    process.stderr.write(
      `${missing.length ? `missing --${missing.join(', --')}` : 'numbers must be positive'}\n${CATALOG_BUILD_USAGE}\n`,
    );
    return 2;
  }
  try {
    const r = await buildCatalog({
      input: values.input!,
      outDir: values.out!,
      id: values.id!,
      name: values.name ?? values.id!,
      vendor: values.vendor,
      website: values.website,
      contact: values.contact,
      release: values.release,
      license: values.license,
      source: values.source,
      smilesCol: values['smiles-col'] ?? 'smiles',
      idCol: values['id-col'] ?? 'id',
      priceCol: values['price-col'],
      delimiter: values.delimiter,
      threads: int(values.threads),
      limit: int(values.limit),
      shardRows: int(values['shard-rows']),
      admet: !values['no-admet'],
    });
    process.stdout.write(
      `${JSON.stringify({ id: r.manifest.id, counts: r.manifest.counts, shards: r.manifest.shards.length, seconds: r.seconds })}\n`,
    );
  } catch (err) {
    process.stderr.write(`catalog build failed: ${(err as Error).message}\n`);
    return 1;
  }
  try {
    await hooks.afterBuild?.(values.out!);
  } catch (err) {
    process.stderr.write(`catalog built, but publishing it failed: ${(err as Error).message}\n`);
    return 1;
  }
  return 0;
}
