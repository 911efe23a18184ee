import { describe, expect, it } from 'vitest';
import { parseSse } from '../../../web/src/http/sse-parse.ts';

describe('the server-sent events parser', () => {
  it('reads id, event and data of each complete message and keeps the unfinished tail', () => {
    const { messages, rest } = parseSse(
      'retry: 1000\n\nid: 1\nevent: run.started\ndata: {"sequence":1}\n\n: keep-alive\n\nid: 2\nevent: item.succ',
    );
    expect(messages).toEqual([{ id: '1', event: 'run.started', data: '{"sequence":1}' }]);
    expect(rest).toBe('id: 2\nevent: item.succ');
    const next = parseSse(rest + 'eeded\ndata: {"sequence":2}\r\n\r\n');
    expect(next.messages).toEqual([{ id: '2', event: 'item.succeeded', data: '{"sequence":2}' }]);
    expect(next.rest).toBe('');
  });

  it('joins multi-line data and defaults the event name to message', () => {
    expect(parseSse('data: a\ndata: b\n\n').messages).toEqual([{ event: 'message', data: 'a\nb' }]);
  });
});
