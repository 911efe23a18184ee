import { callRaw } from './client.ts';
import { parseSse, type SseMessage } from './sse-parse.ts';

export type { SseMessage };

/**
 * Server-sent events over fetch: EventSource cannot send the X-API-Key header, and the key must
 * never go into a URL. Parses the text/event-stream framing, and reconnects after a dropped
 * connection with Last-Event-ID so no event is missed or repeated.
 *
 * Reads `path` as an event stream until the server ends it (after the run's terminal event) or
 * `signal` aborts. Reconnects up to `maxRetries` times in a row after network faults.
 */
export async function streamEvents(
  path: string,
  onMessage: (m: SseMessage) => void,
  opts: { signal: AbortSignal; lastEventId?: string; maxRetries?: number; onConnect?: () => void },
): Promise<void> {
  let lastId = opts.lastEventId;
  let failures = 0;
  while (!opts.signal.aborted) {
    try {
      const res = await callRaw(path, {
        headers: { accept: 'text/event-stream', ...(lastId ? { 'last-event-id': lastId } : {}) },
        signal: opts.signal,
      });
      opts.onConnect?.();
      const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
      let buffer = '';
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return; // the server closes the stream after the terminal event
        const parsed = parseSse(buffer + value);
        buffer = parsed.rest;
        for (const m of parsed.messages) {
          if (m.id !== undefined) lastId = m.id;
          failures = 0;
          onMessage(m);
        }
      }
    } catch (err) {
      if (opts.signal.aborted) return;
      if ((err as { status?: number }).status && (err as { status: number }).status !== 0) throw err;
      if (++failures > (opts.maxRetries ?? 5)) throw err;
      await new Promise((r) => setTimeout(r, 500 * failures));
    }
  }
}
