/**
 * `molsearch space build ...`: argument parsing for the space builder (bin/commands/space.ts).
 */
import { parseArgs } from 'node:util';
import { buildSpace } from './build-space.ts';
import { SynthonFormatError } from './parse.ts';

export const SPACE_BUILD_USAGE = `usage: molsearch space build --input FILE --out DIR --id ID [--name NAME] [--source TEXT]
FILE is RDKit's synthon text format (header "SMILES synton_id synton# reaction_id [release]") or the
Chemspace form ("SMILES,synton_id,synton_role,reaction_id"), tab-, space- or comma-separated,
optionally .gz. Rejected lines go to DIR/rejects.tsv with line numbers and reasons.
A rerun on the same input resumes an interrupted build.`;

/** Runs the space builder from CLI arguments; returns the exit code (0 ok, 2 usage, 1 failure). */
export async function runSpaceBuild(argv: string[]): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        input: { type: 'string' },
        out: { type: 'string' },
        id: { type: 'string' },
        name: { type: 'string' },
        source: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    }));
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\n${SPACE_BUILD_USAGE}\n`);
    return 2;
  }
  if (values.help) {
    process.stdout.write(`${SPACE_BUILD_USAGE}\n`);
    return 0;
  }
  const missing = (['input', 'out', 'id'] as const).filter((k) => !values[k]);
  if (missing.length) {
    process.stderr.write(`missing ${missing.map((m) => `--${m}`).join(', ')}\n${SPACE_BUILD_USAGE}\n`);
    return 2;
  }
  try {
    const { rejects } = await buildSpace({
      input: values.input!,
      out: values.out!,
      id: values.id!,
      name: values.name,
      source: values.source,
      progress: true,
    });
    for (const r of rejects.slice(0, 20)) process.stderr.write(`line ${r.line}: ${r.reason}\n`);
    if (rejects.length > 20) process.stderr.write(`... ${rejects.length - 20} more in rejects.tsv\n`);
    return 0;
  } catch (err) {
    if (err instanceof SynthonFormatError) {
      process.stderr.write(`${values.input}: ${err.message}\n`);
      return 1;
    }
    throw err;
  }
}
