/** Build progress on stderr: a redrawn bar on a terminal, plain periodic lines otherwise. */

export interface Progress {
  update(done: number, rejected: number): void;
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
  const line = (done: number, rejected: number): string => {
    const secs = (Date.now() - start) / 1000;
    const rate = secs > 0 ? Math.round(done / secs) : 0;
    if (total) {
      const frac = Math.min(1, done / total);
      const width = 30;
      const bar = '#'.repeat(Math.round(frac * width)).padEnd(width, '.');
      const eta = rate > 0 ? Math.round((total - done) / rate) : 0;
      return `${label} [${bar}] ${(frac * 100).toFixed(1)}% ${done}/${total} rows, ${rejected} rejected, ${rate}/s, eta ${eta}s`;
    }
    return `${label} ${done} rows, ${rejected} rejected, ${rate}/s`;
  };
  return {
    update(done, rejected) {
      if (!enabled) return;
      const now = Date.now();
      if (tty && now - last > 100) stream.write(`\r${line(done, rejected)}\x1b[K`);
      else if (!tty && now - last > 5000) stream.write(`${line(done, rejected)}\n`);
      else return;
      last = now;
    },
    finish(message) {
      if (!enabled) return;
      stream.write(`${tty ? '\r\x1b[K' : ''}${message}\n`);
    },
  };
}
