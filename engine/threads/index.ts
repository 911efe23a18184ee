/** Public surface of engine/threads: the one worker-thread pool of the engine (see engine/README.md). */
export {
  createThreadPool,
  threadPoolsMemory,
  type RunOptions,
  type ThreadMemory,
  type ThreadHandle,
  type ThreadPool,
  type ThreadPoolOptions,
  type ThreadPoolStats,
} from './pool.ts';
export { serveThread, withTransfer, type ThreadService, type Transfer } from './thread.ts';
export { deserializeError, serializeError, type SerializedError } from './protocol.ts';
export { isolateMemory, registerWasmMemory, type IsolateMemory } from '../../platform/memory.ts';
