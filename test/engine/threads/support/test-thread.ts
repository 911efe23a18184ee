// A worker-thread entry for the thread-pool tests: each request names an operation.
import { threadId } from 'node:worker_threads';
import { DomainError } from '../../../../platform/errors.ts';
import { serveThread, withTransfer } from '../../../../engine/threads/index.ts';

export type TestRequest =
  | { op: 'whoami' }
  | { op: 'sleep'; ms: number; tag?: string }
  | { op: 'crash' }
  | { op: 'wasm-trap' }
  | { op: 'domain-error' }
  | { op: 'plain-error' }
  | { op: 'register'; key: string }
  | { op: 'registered' }
  | { op: 'bytes'; n: number }
  | { op: 'context'; context?: string };

interface WasmApi {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object) => { exports: { f: () => void } };
}

serveThread<TestRequest, unknown>(async (data) => {
  const { slot, failSetup } = (data ?? {}) as { slot?: number; failSetup?: boolean };
  if (failSetup) throw new DomainError('unavailable', 'models missing in this test thread');
  const registered: string[] = [];
  let context: string | undefined;
  return {
    info: { slot, threadId },
    handle(req) {
      switch (req.op) {
        case 'whoami':
          return { slot, threadId };
        case 'sleep': {
          const start = Date.now();
          const until = start + req.ms;
          while (Date.now() < until); // busy, as CPU work is
          return { tag: req.tag, threadId, start, end: Date.now() };
        }
        case 'crash':
          process.exit(3);
          return null;
        case 'wasm-trap': {
          // A real WebAssembly trap: a module whose one function is `unreachable`.
          const bytes = new Uint8Array([
            0, 0x61, 0x73, 0x6d, 1, 0, 0, 0, 1, 4, 1, 0x60, 0, 0, 3, 2, 1, 0, 7, 5, 1, 1, 0x66, 0, 0, 0x0a, 5,
            1, 3, 0, 0, 0x0b,
          ]);
          const W = (globalThis as unknown as { WebAssembly: WasmApi }).WebAssembly;
          new W.Instance(new W.Module(bytes)).exports.f();
          return null;
        }
        case 'domain-error':
          throw new DomainError('validation_error', '$.x: bad', {
            issues: [{ loc: ['body', 'x'], msg: 'bad', type: 'value_error' }],
          });
        case 'plain-error':
          throw Object.assign(new TypeError('not a number'), { code: 'ERR_TEST' });
        case 'register':
          registered.push(req.key);
          return null;
        case 'registered':
          return [...registered];
        case 'bytes': {
          const a = new Float64Array(req.n).map((_, i) => i);
          return withTransfer(a, [a.buffer]);
        }
        case 'context':
          if (req.context !== undefined) context = req.context;
          return { context, threadId };
      }
    },
  };
});
