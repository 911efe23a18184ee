import { runSpaceBuild, SPACE_BUILD_USAGE } from '../../engine/synthons/index.ts';

/** `molsearch space build ...`. */
export async function runSpace(argv: string[]): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub === 'build') return runSpaceBuild(rest);
  process.stderr.write(`${SPACE_BUILD_USAGE}\n`);
  return 2;
}
