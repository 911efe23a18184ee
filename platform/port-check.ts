/**
 * Whether a TCP port can be listened on, asked before a long start-up rather than learnt at its
 * end: `molsearch start` with its API port taken (another service, a second start on another
 * data directory) answered EADDRINUSE only after Temporal, the catalogs and the spaces, about
 * three minutes in (user trial). A probe, not a reservation: the port is free again at once.
 */
import { createServer } from 'node:net';

export class PortInUseError extends Error {
  readonly code = 'port_in_use';
  readonly host: string;
  readonly port: number;
  constructor(host: string, port: number, setting: string) {
    super(
      `port ${port} on ${host} is in use by another process; stop it, or start on another port ` +
        `(${setting}=…)`,
    );
    this.host = host;
    this.port = port;
  }
}

/**
 * Resolves when `port` on `host` can be listened on now; rejects with PortInUseError naming the
 * setting that chooses it when it is taken (other errors, such as EACCES, as they are). Port 0
 * (any free port) always can.
 */
export function assertPortFree(host: string, port: number, setting: string): Promise<void> {
  if (port === 0) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.unref();
    probe.once('error', (err: NodeJS.ErrnoException) =>
      reject(err.code === 'EADDRINUSE' ? new PortInUseError(host, port, setting) : err),
    );
    probe.listen({ host, port, exclusive: true }, () => probe.close(() => resolve()));
  });
}
