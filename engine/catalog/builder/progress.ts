/** Build progress on stderr: a redrawn bar on a terminal, plain periodic lines otherwise. */

/** Work done and expected, when rows are not an even measure of it (percent and eta follow it). */
export interface Work {
  done: number;
  total: number;
}

export interface Progress {
  update(done: number, rejected: number, work?: Work): void;
  finish(message: string): void;
}

/** A progress reporter writing to `stream`; `total` is the expected row count when known. */
export function createProgress(
  label: string,
  total: number | undefined,
  stream: NodeJS.WriteStream = process.stderr,
  enabled = true,
): Progress {
  const tty = Boolean(stream.isTTY);
  const start = Date.now();
  let last = 0;
  const line = (done: number, rejected: number, work?: Work): string => {
    const secs = (Date.now() - start) / 1000;
    const rate = secs > 0 ? Math.round(done / secs) : 0;
    if (total) {
      const w = work ?? { done, total };
      const frac = Math.min(1, w.done / Math.max(1, w.total));
      const width = 30;
      const bar = '#'.repeat(Math.round(frac * width)).padEnd(width, '.');
      const workRate = secs > 0 ? w.done / secs : 0;
      const eta = workRate > 0 ? Math.round(Math.max(0, w.total - w.done) / workRate) : 0;
      return `${label} [${bar}] ${(frac * 100).toFixed(1)}% ${done}/${total} rows, ${rejected} rejected, ${rate}/s, eta ${eta}s`;
    }
    return `${label} ${done} rows, ${rejected} rejected, ${rate}/s`;
  };
  return {
    update(done, rejected, work) {
      if (!enabled) return;
      const now = Date.now();
      if (tty && now - last > 100) stream.write(`\r${line(done, rejected, work)}\x1b[K`);
      else if (!tty && now - last > 5000) stream.write(`${line(done, rejected, work)}\n`);
      else return;
      last = now;
    },
    finish(message) {
      if (!enabled) return;
      stream.write(`${tty ? '\r\x1b[K' : ''}${message}\n`);
    },
  };
}
