/**
 * GET /events[?since=<seq>]: notifications as server-sent events (`id: <seq>`, `event:
 * notification`, `data: <JSON>`). A reconnecting client's Last-Event-ID (or `since`) replays
 * what it missed from the inbox first.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Notification } from '../index/inbox.ts';
import type { CidxNode } from '../node/node.ts';
import { notificationJson } from './methods.ts';

/** Comment lines keep idle streams (and proxies between) open. */
const KEEP_ALIVE_MS = 15_000;

export function streamEvents(
  node: CidxNode,
  req: IncomingMessage,
  res: ServerResponse,
  clients: Set<ServerResponse>,
): void {
  const q = new URL(req.url ?? '/', 'http://localhost').searchParams.get('since');
  const since = Number(req.headers['last-event-id'] ?? q ?? 0);
  res.writeHead(200, {
    'Content-Type': 'text/event-stream',
    'Cache-Control': 'no-cache',
    Connection: 'keep-alive',
    'X-Content-Type-Options': 'nosniff',
  });
  res.write(': connected\n\n'); // sends the headers now, through any buffering proxy
  const write = (n: Notification) =>
    res.write(
      `id: ${n.seq}\nevent: notification\ndata: ${JSON.stringify(notificationJson(n))}\n\n`,
    );
  for (const n of node.notifications(Number.isSafeInteger(since) && since > 0 ? since : 0))
    write(n);
  const onNote = (n: Notification) => write(n);
  node.on('notification', onNote);
  const ping = setInterval(() => res.write(': keep-alive\n\n'), KEEP_ALIVE_MS);
  clients.add(res);
  const done = () => {
    clearInterval(ping);
    node.off('notification', onNote);
    clients.delete(res);
  };
  res.on('close', done);
}
