/**
 * A node's notifications as an async iterator over GET /events (server-sent events, parsed by
 * eventsource-parser). Unlike the browser's EventSource it sends the token, and it reconnects
 * with Last-Event-ID after a dropped or silent stream, so the node replays what was missed and
 * nothing is yielded twice.
 */
import { createParser } from 'eventsource-parser';
import type { NotificationJSON } from '../rpc/api.ts';
import {
  asHttpError,
  authHeaders,
  CidxHttpError,
  readLimited,
  refusalMessage,
  type TransportOptions,
} from './transport.ts';

export interface NotificationsOptions {
  /** Only notifications with a larger seq (default 0: all the node keeps). */
  since?: number;
  /** Ends the iteration. */
  signal?: AbortSignal;
  /** First wait before reconnecting (ms, default 500); doubles up to `maxRetryMs`. */
  retryMs?: number;
  maxRetryMs?: number;
  /** Reconnect when nothing arrived for this long (ms; the node sends a keep-alive every 15 s). */
  idleTimeoutMs?: number;
  /** Largest single event accepted (characters of text, default 4 Mi). */
  maxEventSize?: number;
  /** Told about each lost connection before the next attempt. */
  onReconnect?: (reason: Error, attempt: number) => void;
}

const DEFAULTS = { retryMs: 500, maxRetryMs: 30_000, idleTimeoutMs: 45_000, maxEvent: 4 << 20 };
/** What a reconnect cannot cure: the same stream would bring the same data again. */
class StreamDataError extends CidxHttpError {}

/** HTTP answers that a retry cannot change. */
const FATAL = new Set([400, 401, 403, 404, 405, 415]);

export async function* notifications(
  t: TransportOptions,
  base: string,
  opts: NotificationsOptions = {},
): AsyncGenerator<NotificationJSON, void, undefined> {
  let last = opts.since ?? 0;
  const retryMs = opts.retryMs ?? DEFAULTS.retryMs;
  const maxRetryMs = opts.maxRetryMs ?? DEFAULTS.maxRetryMs;
  const idleMs = opts.idleTimeoutMs ?? DEFAULTS.idleTimeoutMs;
  const maxEvent = opts.maxEventSize ?? DEFAULTS.maxEvent;
  const url = `${base}/events`;
  let delay = retryMs;
  let attempt = 0;
  while (opts.signal?.aborted !== true) {
    const ctl = new AbortController();
    const stop = () => ctl.abort();
    opts.signal?.addEventListener('abort', stop);
    let idle: ReturnType<typeof setTimeout> | undefined;
    const touch = (ms: number) => {
      clearTimeout(idle);
      idle = setTimeout(() => ctl.abort(new CidxHttpError(`${url}: silent for ${ms} ms`)), ms);
    };
    let reason: Error;
    try {
      touch(t.timeoutMs); // until the headers arrive
      const res = await t.fetch(url, {
        headers: {
          Accept: 'text/event-stream',
          'Last-Event-ID': String(last),
          ...authHeaders(t.token),
        },
        signal: ctl.signal,
      });
      if (res.status !== 200 || res.body === null) {
        const err = new CidxHttpError(
          refusalMessage(res.status, await readLimited(res, 65_536)),
          res.status,
        );
        if (FATAL.has(res.status)) throw err;
        reason = err;
      } else {
        delay = retryMs; // connected: the next loss starts the back-off afresh
        attempt = 0;
        touch(idleMs);
        yield* readStream(
          res.body,
          ctl,
          maxEvent,
          () => touch(idleMs),
          last,
          (seq) => {
            last = seq;
          },
        );
        reason = new CidxHttpError(`${url}: the node closed the stream`);
      }
    } catch (err) {
      if (opts.signal?.aborted) return;
      if (err instanceof CidxHttpError && err.status !== undefined && FATAL.has(err.status))
        throw err;
      if (err instanceof StreamDataError) throw err;
      if (err instanceof SyntaxError) throw new CidxHttpError(`${url}: ${err.message}`);
      const cause = ctl.signal.aborted ? ctl.signal.reason : err;
      reason = asHttpError(cause, false, t.timeoutMs, url);
    } finally {
      clearTimeout(idle);
      ctl.abort(); // ends the request when the consumer stopped early
      opts.signal?.removeEventListener('abort', stop);
    }
    attempt++;
    opts.onReconnect?.(reason, attempt);
    await sleep(delay, opts.signal);
    delay = Math.min(delay * 2, maxRetryMs);
  }
}

/** Yields the notifications of one connection, newer than `after`, in order. */
async function* readStream(
  body: ReadableStream<Uint8Array>,
  ctl: AbortController,
  maxEvent: number,
  alive: () => void,
  after: number,
  seen: (seq: number) => void,
): AsyncGenerator<NotificationJSON, void, undefined> {
  const queue: NotificationJSON[] = [];
  let pending = 0;
  const parser = createParser({
    onEvent(e) {
      pending = 0;
      if (e.event === 'notification') queue.push(JSON.parse(e.data) as NotificationJSON);
    },
    onComment() {
      pending = 0;
    },
  });
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let last = after;
  try {
    for (;;) {
      const { done, value: bytes } = await reader.read();
      if (done) return;
      alive();
      const value = decoder.decode(bytes, { stream: true });
      pending += value.length;
      if (pending > maxEvent) {
        ctl.abort();
        throw new StreamDataError(`an event larger than ${maxEvent} characters`);
      }
      parser.feed(value);
      while (queue.length > 0) {
        const n = queue.shift() as NotificationJSON;
        if (n.seq <= last) continue; // replayed twice: the node sends what Last-Event-ID missed
        last = n.seq;
        seen(n.seq);
        yield n;
      }
    }
  } finally {
    reader.releaseLock();
  }
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done);
  });
}
