import { afterEach, describe, expect, it, vi } from 'vitest';
import { readdirSync } from 'node:fs';
import { DomainError } from '../../../platform/errors.ts';
import { createThreadPool, type ThreadPool, type ThreadPoolOptions } from '../../../engine/threads/index.ts';
import type { TestRequest } from './support/test-thread.ts';

const script = new URL('./support/test-thread.ts', import.meta.url);
const pools: ThreadPool<TestRequest, any>[] = [];
function pool(opts: Partial<ThreadPoolOptions> = {}): ThreadPool<TestRequest, any> {
  const p = createThreadPool<TestRequest, any>({
    name: 'test',
    script,
    size: 2,
    workerData: (slot) => ({ slot }),
    ...opts,
  });
  pools.push(p);
  return p;
}
afterEach(async () => {
  await Promise.all(pools.splice(0).map((p) => p.close()));
});

const osThreads = (): number => readdirSync('/proc/self/task').length;
const settle = () => new Promise((r) => setTimeout(r, 50));

describe('thread pool', () => {
  it('starts threads on demand, at most size, and runs requests in parallel on them', async () => {
    const p = pool({ size: 2 });
    expect(p.stats().threads).toBe(0);
    const replies = await Promise.all([1, 2, 3, 4].map((i) => p.run({ op: 'sleep', ms: 300, tag: `r${i}` })));
    expect(replies.map((r) => r.tag)).toEqual(['r1', 'r2', 'r3', 'r4']);
    expect(new Set(replies.map((r) => r.threadId)).size).toBe(2);
    // Requests ran at the same time on the two threads: some pair of busy intervals overlaps (a
    // statement about the threads' own clocks, so it holds however loaded the machine is).
    const overlaps = replies.some((a, i) =>
      replies.some((b, j) => i !== j && a.threadId !== b.threadId && a.start! < b.end! && b.start! < a.end!),
    );
    expect(overlaps).toBe(true);
    expect(p.stats()).toMatchObject({ size: 2, threads: 2, busy: 0, queued: 0, completed: 4, died: 0 });
  });

  it('carries a DomainError across the thread boundary with code, message and issues, and a plain error with name and code', async () => {
    const p = pool();
    const err = await p.run({ op: 'domain-error' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DomainError);
    expect(err).toMatchObject({
      code: 'validation_error',
      message: '$.x: bad',
      issues: [{ loc: ['body', 'x'], msg: 'bad', type: 'value_error' }],
    });
    const plain = await p.run({ op: 'plain-error' }).catch((e: unknown) => e);
    expect(plain).not.toBeInstanceOf(DomainError);
    expect(plain).toMatchObject({ name: 'TypeError', message: 'not a number', code: 'ERR_TEST' });
    expect((plain as Error).stack).toContain('in a test thread');
    // The thread survives its handler's errors.
    expect((await p.run({ op: 'whoami' })).slot).toBe(0);
  });

  it('moves transferred buffers back instead of copying them', async () => {
    const p = pool();
    const a: Float64Array = await p.run({ op: 'bytes', n: 1000 });
    expect(a).toBeInstanceOf(Float64Array);
    expect(a[999]).toBe(999);
  });

  it('fails the request of a thread that dies, replaces the thread in the same slot, and serves later requests', async () => {
    const p = pool({ size: 1 });
    const first = await p.run({ op: 'whoami' });
    const err = await p.run({ op: 'crash' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DomainError);
    expect(err).toMatchObject({ code: 'internal', message: 'test thread failed' });
    const after = await p.run({ op: 'whoami' });
    expect(after.slot).toBe(0);
    expect(after.threadId).not.toBe(first.threadId);
    expect(p.stats()).toMatchObject({ threads: 1, died: 1 });
  });

  it('answers a request that trapped in WebAssembly with its error, then replaces the thread', async () => {
    // A trap (RDKit's heap out of bounds) leaves the module's memory unusable for later requests.
    const p = pool({ size: 1 });
    const first = await p.run({ op: 'whoami' });
    const err = await p.run({ op: 'wasm-trap' }).catch((e: unknown) => e);
    expect(String((err as Error).message)).toMatch(/unreachable/);
    const after = await p.run({ op: 'whoami' });
    expect(after.slot).toBe(0);
    expect(after.threadId).not.toBe(first.threadId);
  });

  it('fails only the dead thread’s request; queued work goes on to the replacement', async () => {
    const p = pool({ size: 1 });
    const crash = p.run({ op: 'crash' }).catch((e: unknown) => e);
    const next = p.run({ op: 'sleep', ms: 10, tag: 'after' });
    expect(await crash).toMatchObject({ code: 'internal' });
    expect((await next).tag).toBe('after');
  });

  it('with respawnEagerly, replaces a dead thread at once and registers it through onSpawn before work', async () => {
    let spawned = 0;
    const p = pool({
      size: 2,
      respawnEagerly: true,
      onSpawn: async (t) => {
        spawned++;
        await t.call({ op: 'register', key: `spawn-${t.index}` });
      },
    });
    await p.start();
    await p.broadcast({ op: 'register', key: 'catalog-a' });
    await p.run({ op: 'crash' }).catch(() => undefined);
    await settle();
    expect(p.stats().threads).toBe(2);
    expect(spawned).toBe(3);
    // The replacement has its own registration (never none: onSpawn precedes its first request) but
    // not the broadcast (that is onSpawn's job in real pools).
    const seen = new Set<string>();
    for (const until = Date.now() + 10_000; seen.size < 2 && Date.now() < until;) {
      const regs = await Promise.all([0, 1].map(() => p.run({ op: 'registered' })));
      for (const r of regs) seen.add((r as string[]).join(','));
    }
    expect([...seen].sort()).toEqual(['spawn-0', 'spawn-1,catalog-a']);
  });

  it('reports a failed thread setup: start() rejects with the error, and queued requests fail with it', async () => {
    const p = pool({ workerData: () => ({ failSetup: true }) });
    await expect(p.start()).rejects.toMatchObject({
      code: 'unavailable',
      message: 'models missing in this test thread',
    });
    const q = pool({ size: 1, workerData: () => ({ failSetup: true }) });
    const results = await Promise.allSettled([q.run({ op: 'whoami' }), q.run({ op: 'whoami' })]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    expect((results[1] as PromiseRejectedResult).reason).toMatchObject({ code: 'unavailable' });
  });

  it('serves lanes in priority order, FIFO within a lane', async () => {
    const p = pool({ size: 1, lanes: ['interactive', 'batch'] });
    const order: string[] = [];
    const go = (tag: string, lane: string) =>
      p.run({ op: 'sleep', ms: 5, tag }, { lane }).then((r) => order.push(r.tag));
    const blocker = p.run({ op: 'sleep', ms: 200, tag: 'blocker' });
    await Promise.all([
      blocker,
      go('b1', 'batch'),
      go('b2', 'batch'),
      go('i1', 'interactive'),
      go('i2', 'interactive'),
    ]);
    expect(order).toEqual(['i1', 'i2', 'b1', 'b2']);
    await expect(p.run({ op: 'whoami' }, { lane: 'nope' })).rejects.toThrow(/no lane/);
  });

  it('withdraws a queued request when its signal aborts, and rejects past maxQueue with overloaded', async () => {
    const p = pool({ size: 1, maxQueue: 2 });
    const blocker = p.run({ op: 'sleep', ms: 200 });
    const ac = new AbortController();
    const withdrawn = p
      .run({ op: 'sleep', ms: 10, tag: 'x' }, { signal: ac.signal })
      .catch((e: unknown) => e);
    const kept = p.run({ op: 'sleep', ms: 10, tag: 'kept' });
    await expect(p.run({ op: 'whoami' })).rejects.toMatchObject({ code: 'overloaded', retryAfterSeconds: 1 });
    ac.abort(new Error('deadline passed'));
    expect(await withdrawn).toMatchObject({ message: 'deadline passed' });
    expect(p.stats().queued).toBe(1);
    await blocker;
    expect((await kept).tag).toBe('kept');
    expect(p.stats().completed).toBe(2);
  });

  it('keeps a limited lane off the last thread: a cheap request runs at once while heavy ones queue', async () => {
    const p = pool({ size: 2, lanes: ['cheap', 'heavy'], laneLimits: { heavy: 1 } });
    await p.start();
    const heavy = [1, 2, 3].map((i) => p.run({ op: 'sleep', ms: 300, tag: `h${i}` }, { lane: 'heavy' }));
    await settle();
    expect(p.stats()).toMatchObject({ busy: 1, queued: 2 });
    const t0 = Date.now();
    const cheap = await p.run({ op: 'sleep', ms: 5, tag: 'c' }, { lane: 'cheap' });
    expect(cheap.tag).toBe('c');
    expect(Date.now() - t0).toBeLessThan(250); // not behind a 300 ms heavy request
    const done = await Promise.all(heavy);
    // One heavy at a time: each starts after the previous ended.
    expect(done[1].start).toBeGreaterThanOrEqual(done[0].end);
    expect(done[2].start).toBeGreaterThanOrEqual(done[1].end);
  });

  it('withdraws a request still queued at its deadline, with overloaded, and leaves the others', async () => {
    const p = pool({ size: 1 });
    const blocker = p.run({ op: 'sleep', ms: 300 });
    const t0 = Date.now();
    const late = p
      .run({ op: 'sleep', ms: 10, tag: 'late' }, { deadline: Date.now() + 50 })
      .catch((e: unknown) => e);
    const kept = p.run({ op: 'sleep', ms: 10, tag: 'kept' });
    expect(await late).toMatchObject({ code: 'overloaded', message: /waited past its deadline/ });
    expect(Date.now() - t0).toBeLessThan(250); // answered at its deadline, not when the blocker ends
    expect(p.stats().queued).toBe(1);
    await blocker;
    expect((await kept).tag).toBe('kept');
    await expect(p.run({ op: 'whoami' }, { deadline: Date.now() - 1 })).rejects.toMatchObject({
      code: 'overloaded',
    });
  });

  it('with terminateOverdue, stops a request running past its deadline by replacing its thread; without, answers it late', async () => {
    const p = pool({ size: 1, terminateOverdue: true });
    const before = await p.run({ op: 'whoami' });
    const t0 = Date.now();
    const overdue = p.run({ op: 'sleep', ms: 5000 }, { deadline: Date.now() + 100 }).catch((e: unknown) => e);
    const next = p.run({ op: 'whoami' });
    expect(await overdue).toMatchObject({ code: 'overloaded', message: /ran past its deadline/ });
    const after = await next;
    expect(Date.now() - t0).toBeLessThan(3000); // not after the 5 s the request wanted
    expect(after.threadId).not.toBe(before.threadId);
    expect(after.slot).toBe(0);

    const lenient = pool({ size: 1 });
    const late = await lenient.run({ op: 'sleep', ms: 200, tag: 'late' }, { deadline: Date.now() + 50 });
    expect(late.tag).toBe('late');
  });

  it('with stopOnAbort, an abort stops a running request by replacing its thread; without, it is answered as usual', async () => {
    const p = pool({ size: 1 });
    const before = await p.run({ op: 'whoami' });
    const ac = new AbortController();
    const t0 = Date.now();
    // A minute of CPU: only stopping the thread answers the next request within the test's time.
    const running = p
      .run({ op: 'sleep', ms: 60_000 }, { signal: ac.signal, stopOnAbort: true })
      .catch((e: unknown) => e);
    await vi.waitFor(() => expect(p.stats().busy).toBe(1));
    const next = p.run({ op: 'whoami' });
    ac.abort(new Error('worker shutting down'));
    expect(await running).toMatchObject({ message: 'worker shutting down' });
    const after = await next;
    expect(Date.now() - t0).toBeLessThan(30_000);
    expect(after.threadId).not.toBe(before.threadId);
    expect(p.stats().died).toBe(0); // stopped on purpose, not a crash

    const lenient = pool({ size: 1 });
    const first = await lenient.run({ op: 'whoami' });
    const ac2 = new AbortController();
    const kept = lenient.run({ op: 'sleep', ms: 300, tag: 'kept' }, { signal: ac2.signal });
    await vi.waitFor(() => expect(lenient.stats().busy).toBe(1));
    ac2.abort(new Error('gone'));
    expect((await kept).tag).toBe('kept');
    expect((await lenient.run({ op: 'whoami' })).threadId).toBe(first.threadId);
  });

  it('reports each ready thread’s memory (heaps, array buffers) without waiting in the queue', async () => {
    const p = pool({ size: 2 });
    await p.start();
    const busy = p.run({ op: 'sleep', ms: 300 });
    p.run({ op: 'sleep', ms: 300 }).catch(() => undefined);
    p.run({ op: 'sleep', ms: 300 }).catch(() => undefined);
    const mem = await p.memory();
    expect(mem.map((m) => m.slot).sort()).toEqual([0, 1]);
    for (const m of mem) {
      expect(m.pool).toBe('test');
      expect(m.heapUsed).toBeGreaterThan(1e5);
      expect(m.wasm).toEqual({});
    }
    await busy;
  });

  it('builds a request for the thread it lands on: context is sent once per thread, again to a replacement', async () => {
    const p = pool({ size: 1 });
    const sent: boolean[] = [];
    const ask = () =>
      p.run((t) => {
        const first = !t.seen.has('lib');
        t.seen.add('lib');
        sent.push(first);
        return { op: 'context', context: first ? 'library rows' : undefined };
      });
    expect((await ask()).context).toBe('library rows');
    expect((await ask()).context).toBe('library rows');
    await p.run({ op: 'crash' }).catch(() => undefined);
    expect((await ask()).context).toBe('library rows');
    expect(sent).toEqual([true, false, true]);
  });

  it('close() rejects queued and running requests with unavailable, terminates every thread, and rejects later requests', async () => {
    const before = osThreads();
    const p = pool({ size: 3 });
    await p.start();
    expect(osThreads() - before).toBeGreaterThanOrEqual(3);
    const running = p.run({ op: 'sleep', ms: 300 }).catch((e: unknown) => e);
    const queued = [1, 2, 3].map(() => p.run({ op: 'sleep', ms: 300 }).catch((e: unknown) => e));
    await settle();
    await p.close();
    expect(await running).toMatchObject({ code: 'unavailable', message: 'test pool is closed' });
    for (const q of queued) expect(await q).toMatchObject({ code: 'unavailable' });
    await settle();
    expect(osThreads()).toBeLessThanOrEqual(before);
    expect(p.stats()).toMatchObject({ threads: 0, busy: 0, queued: 0 });
    await expect(p.run({ op: 'whoami' })).rejects.toMatchObject({ code: 'unavailable' });
    await p.close();
  });
});
