/** A server-sent-events consumer that reconnects with Last-Event-ID until it sees a terminal run event. */
export interface SseEvent {
  id: number;
  type: string;
  data: { sequence: number; type: string; item_id: string | null };
}

export async function consumeRunEvents(opts: {
  url: () => string | undefined;
  runId: string;
  apiKey: string;
  onEvent?: (e: SseEvent, all: SseEvent[]) => void | Promise<void>;
  timeoutMs?: number;
}) {
  const seen: SseEvent[] = [];
  let connections = 0;
  const end = Date.now() + (opts.timeoutMs ?? 120_000);
  while (Date.now() < end) {
    const base = opts.url();
    if (!base) {
      await new Promise((r) => setTimeout(r, 50));
      continue;
    }
    const headers: Record<string, string> = { 'x-api-key': opts.apiKey, accept: 'text/event-stream' };
    if (seen.length) headers['last-event-id'] = String(seen[seen.length - 1].id);
    let res: Response;
    try {
      res = await fetch(`${base}/api/v2/runs/${opts.runId}/events/stream`, { headers });
    } catch {
      await new Promise((r) => setTimeout(r, 50)); // the API is restarting
      continue;
    }
    connections++;
    if (res.status !== 200 || !res.body) throw new Error(`stream answered ${res.status}`);
    const decoder = new TextDecoder();
    let buf = '';
    try {
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
        buf += decoder.decode(chunk, { stream: true });
        let cut: number;
        while ((cut = buf.indexOf('\n\n')) >= 0) {
          const block = buf.slice(0, cut);
          buf = buf.slice(cut + 2);
          const fields = Object.fromEntries(
            block
              .split('\n')
              .filter((l) => l && !l.startsWith(':'))
              .map((l) => [l.slice(0, l.indexOf(':')), l.slice(l.indexOf(':') + 1).trim()]),
          );
          if (fields.id === undefined) continue;
          const e: SseEvent = { id: Number(fields.id), type: fields.event, data: JSON.parse(fields.data) };
          seen.push(e);
          await opts.onEvent?.(e, seen);
        }
      }
    } catch {
      // connection cut by the restart: reconnect below
    }
    const last = seen[seen.length - 1];
    if (last && /^run\.(completed|completed_with_errors|failed|cancelled)$/.test(last.type))
      return { events: seen, connections };
  }
  throw new Error(`no terminal event within the timeout; saw ${seen.length} events`);
}
