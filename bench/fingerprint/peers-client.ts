/**
 * Talks to peers.py (FPSim2 and RDKit on the same fingerprints) over stdin/stdout, one request per
 * query, so the benchmark can alternate our scan and the peer's query by query.
 */
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';

export interface PeerTiming {
  ms: number;
  cpuMs: number;
  scores: number[];
}

export interface Peers {
  n: number;
  loadSeconds: number;
  fpsim2(query: number, workers: number): Promise<PeerTiming>;
  rdkit(query: number): Promise<PeerTiming>;
  close(): Promise<void>;
}

/** Starts peers.py with the benchmark's fingerprint file and query rows; resolves once it is loaded. */
export async function startPeers(
  python: string,
  script: string,
  fps: string,
  queries: string,
  k: number,
): Promise<Peers> {
  const child = spawn(python, [script, fps, queries, String(k)], { stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr = (stderr + String(d)).slice(-4000)));
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  const next = async (): Promise<Record<string, unknown>> => {
    const r = await lines.next();
    if (r.done) throw new Error(`peers.py exited: ${stderr}`);
    return JSON.parse(r.value) as Record<string, unknown>;
  };
  const ready = await next();
  const ask = async (line: string): Promise<PeerTiming> => {
    child.stdin.write(`${line}\n`);
    const r = await next();
    if (r.error) throw new Error(String(r.error));
    return { ms: r.ms as number, cpuMs: r.cpu_ms as number, scores: r.scores as number[] };
  };
  return {
    n: ready.n as number,
    loadSeconds: ready.load_s as number,
    fpsim2: (q, workers) => ask(`fpsim2 ${q} ${workers}`),
    rdkit: (q) => ask(`rdkit ${q}`),
    async close() {
      const done = new Promise<void>((r) => child.once('exit', () => r()));
      child.stdin.end();
      await done;
    },
  };
}
