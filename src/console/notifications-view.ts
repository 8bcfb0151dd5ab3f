/**
 * Notifications as they arrive. Without a token the browser's own EventSource reads GET /events
 * (it reconnects with Last-Event-ID by itself); EventSource cannot send an Authorization header,
 * so with a token the client's fetch-based stream does the same.
 */
import type { CidxClient, NotificationJSON } from '../client/index.ts';
import { byId, h, idCode, similarityBar, status } from './dom.ts';

export function startNotifications(
  client: CidxClient,
  withToken: boolean,
  arrived: () => void,
): () => void {
  const list = byId('notes');
  const line = byId('notes-status');
  const seen = new Set<number>();
  const show = (n: NotificationJSON) => {
    if (seen.has(n.seq)) return;
    seen.add(n.seq);
    arrived();
    const when = new Date(n.receivedAt);
    list.prepend(
      h(
        'li',
        { class: 'note', 'data-seq': n.seq, 'data-id': n.community.id },
        h('span', { class: 'kind' }, n.kind === 'created' ? 'New' : 'Changed'),
        ' community ',
        idCode(n.community.id),
        ` (version ${n.community.version}) is similar to yours `,
        idCode(n.for),
        similarityBar(n.similarity, 1),
        h('time', { datetime: when.toISOString() }, when.toLocaleTimeString()),
      ),
    );
  };

  if (!withToken) {
    const source = new EventSource('/events');
    source.addEventListener('open', () => status(line, 'live'));
    source.addEventListener('error', () =>
      status(line, source.readyState === EventSource.CLOSED ? 'stream closed' : 'reconnecting…'),
    );
    source.addEventListener('notification', (e) => show(JSON.parse((e as MessageEvent).data)));
    return () => source.close();
  }
  const stop = new AbortController();
  void (async () => {
    status(line, 'live');
    try {
      for await (const n of client.notifications({
        signal: stop.signal,
        onReconnect: () => status(line, 'reconnecting…'),
      })) {
        status(line, 'live');
        show(n);
      }
    } catch (err) {
      status(line, `stream stopped: ${(err as Error).message}`, true);
    }
  })();
  return () => stop.abort();
}
