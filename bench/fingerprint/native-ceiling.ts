/**
 * Builds and loads the native read loop (native/read-loop.c) as a Node-API add-on, so the
 * benchmark measures the machine's single-core memory bandwidth with 256-bit loads in its own
 * process, over the same bytes the WebAssembly kernel scans. Compiled with the machine's gcc into
 * bench/out/native/ (git-ignored) whenever the source changed; never committed as a binary.
 */
import { createHash } from 'node:crypto';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';

export interface NativeReader {
  /** ORs the bytes of `view` (a Uint8Array) with 32-byte AVX2 loads. */
  readAvx2(view: Uint8Array): bigint;
  /** The same with 16-byte SSE loads. */
  readSse(view: Uint8Array): bigint;
}

const SOURCE = resolve(import.meta.dirname, 'native/read-loop.c');

/** Why the native ceiling cannot be measured here, or undefined when it can. */
function unavailable(): string | undefined {
  if (process.arch !== 'x64') return `the native read loop needs x86-64 (this is ${process.arch})`;
  if (spawnSync('gcc', ['--version']).status !== 0)
    return 'gcc is not installed (apt-get install gcc), so the native AVX2 ceiling is skipped';
  const cpu = existsSync('/proc/cpuinfo') ? readFileSync('/proc/cpuinfo', 'utf8') : '';
  if (!/\bavx2\b/.test(cpu)) return 'this CPU has no AVX2';
  return undefined;
}

/**
 * The native reader, or a sentence saying why it is skipped (no gcc, no AVX2, not x64). Node's
 * own headers (include/node next to the running binary, or /usr/include/node) provide node_api.h.
 */
export function loadNativeReader(outDir: string): NativeReader | string {
  const why = unavailable();
  if (why) return why;
  const src = readFileSync(SOURCE);
  const tag = createHash('sha256').update(src).update(process.version).digest('hex').slice(0, 12);
  const lib = join(outDir, `read-loop-${tag}.node`);
  if (!existsSync(lib)) {
    const include = [resolve(dirname(process.execPath), '../include/node'), '/usr/include/node'].find((d) =>
      existsSync(join(d, 'node_api.h')),
    );
    if (!include) return 'node_api.h not found (Node headers), so the native AVX2 ceiling is skipped';
    mkdirSync(outDir, { recursive: true });
    try {
      execFileSync('gcc', ['-O2', '-shared', '-fPIC', `-I${include}`, '-o', lib, SOURCE], {
        stdio: 'pipe',
      });
    } catch (err) {
      return `gcc could not build the native read loop: ${String((err as { stderr?: Buffer }).stderr ?? err)}`;
    }
  }
  return createRequire(import.meta.url)(lib) as NativeReader;
}
