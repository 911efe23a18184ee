// The start-up port probe (platform/port-check.ts) against real sockets on loopback.
import { createServer, type Server } from 'node:net';
import { describe, expect, it } from 'vitest';
import { assertPortFree, PortInUseError } from '../../platform/port-check.ts';

const listening = (port = 0): Promise<Server> =>
  new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen({ host: '127.0.0.1', port }, () => resolve(s));
  });
const portOf = (s: Server): number => (s.address() as { port: number }).port;
const closed = (s: Server): Promise<void> => new Promise((resolve) => s.close(() => resolve()));

describe('assertPortFree', () => {
  it('rejects a port another process listens on, naming the port and the setting to change', async () => {
    const taken = await listening();
    const port = portOf(taken);
    try {
      const err = await assertPortFree('127.0.0.1', port, 'PORT').catch((e: unknown) => e);
      expect(err).toBeInstanceOf(PortInUseError);
      expect((err as PortInUseError).code).toBe('port_in_use');
      expect((err as Error).message).toContain(`port ${port} on 127.0.0.1 is in use`);
      expect((err as Error).message).toContain('PORT=');
    } finally {
      await closed(taken);
    }
  });

  it('resolves for a free port and leaves it free to listen on', async () => {
    const probe = await listening();
    const port = portOf(probe);
    await closed(probe);
    await assertPortFree('127.0.0.1', port, 'PORT');
    const after = await listening(port);
    expect(portOf(after)).toBe(port);
    await closed(after);
  });

  it('lets port 0 (any free port) through', async () => {
    await expect(assertPortFree('127.0.0.1', 0, 'PORT')).resolves.toBeUndefined();
  });
});
