/** The text/event-stream framing (pure): complete messages out of a growing buffer. */
export interface SseMessage {
  id?: string;
  event: string;
  data: string;
}

/** Splits a buffer into complete messages; returns them and the unfinished tail. */
export function parseSse(buffer: string): { messages: SseMessage[]; rest: string } {
  const messages: SseMessage[] = [];
  const blocks = buffer.replace(/\r\n?/g, '\n').split('\n\n');
  const rest = blocks.pop() ?? '';
  for (const block of blocks) {
    const m: SseMessage = { event: 'message', data: '' };
    const data: string[] = [];
    for (const line of block.split('\n')) {
      if (!line || line.startsWith(':')) continue;
      const i = line.indexOf(':');
      const field = i < 0 ? line : line.slice(0, i);
      const value = i < 0 ? '' : line.slice(i + 1).replace(/^ /, '');
      if (field === 'data') data.push(value);
      else if (field === 'event') m.event = value;
      else if (field === 'id') m.id = value;
    }
    if (data.length || m.id !== undefined) messages.push({ ...m, data: data.join('\n') });
  }
  return { messages, rest };
}
