/**
 * Protocol selection without its round trip, for the protocols of a search and a create.
 *
 * multistream-select negotiates the protocol of every new stream: the dialer sends the protocol's
 * name and waits for the answer before its first byte, so every request costs two round trips
 * even on an open connection. The spec allows the dialer to send the name and its first message
 * together and read the answer with the reply ("lazy" negotiation: go-libp2p does it, js-libp2p
 * 3.x declares `negotiateFully: false` in @libp2p/interface but its multistream-select always
 * waits). The responder side is unchanged: js-libp2p's handler keeps bytes that arrive behind
 * the name and hands them to the protocol, so nodes that wait interoperate with nodes that do
 * not.
 *
 * Written here because no library does it: a wrapper around a stream-muxer factory. For a stream
 * opened for one protocol that `optimistic(protocol)` accepts, it marks the stream as already
 * negotiated (libp2p then skips its own selection), sends the name ahead of the first bytes
 * written — or alone, as soon as something listens for the answer — and strips the echo from
 * what arrives before the protocol sees it. A refusal aborts the stream with libp2p's
 * UnsupportedProtocolError at the first read, not at `newStream`. Callers that pass
 * `negotiateFully: true` get libp2p's full negotiation. Only the protocols every node of a swarm
 * speaks are sent this way: a peer whose answer is "na" costs a stream error instead of a failed
 * `newStream`, and libp2p, which records a protocol in the peer store once `newStream` returns,
 * has it taken out again through `onRefused`.
 */
import type { Stream, StreamMuxerFactory } from '@libp2p/interface';
import { UnsupportedProtocolError } from '@libp2p/interface';
import { Uint8ArrayList } from 'uint8arraylist';
import { type Bytes, HEADER, nameOf, takeEcho } from './multistream.ts';
import { adaptMuxers } from './muxer-guard.ts';

/** The parts of js-libp2p 3.x's AbstractStream this wrapper replaces on one stream instance. */
interface MuxedStream {
  protocol: string;
  send(data: Bytes): boolean;
  onData(data: Bytes): void;
  abort(err: Error): void;
  addEventListener(type: string, ...rest: unknown[]): void;
}

/** Makes `stream` send `protocol`'s name with its first bytes and take the echo off its reads. */
export function selectOptimistically(
  stream: MuxedStream,
  protocol: string,
  onRefused?: () => void,
): void {
  const send = stream.send.bind(stream);
  const listen = stream.addEventListener.bind(stream);
  const name = new Uint8ArrayList(HEADER, nameOf(protocol));
  let named = false;

  const sendName = () => {
    if (named) return;
    named = true;
    try {
      send(name);
    } catch {
      // Closed or aborted in the same turn, before anything was written: nothing to name.
    }
  };
  stream.protocol = protocol;
  stream.send = (data) => {
    if (named) return send(data);
    named = true;
    return send(new Uint8ArrayList(name, data));
  };
  stream.addEventListener = (type, ...rest) => {
    listen(type, ...rest);
    // A reader waits for the answer: the name must go, with the first bytes if they are
    // written in the same turn (the usual request: open a reader, then write).
    if (type === 'message' && !named) queueMicrotask(sendName);
  };
  takeEcho(stream, protocol, (err) => {
    if (err instanceof UnsupportedProtocolError) onRefused?.();
    stream.abort(err);
  });
}

/**
 * Wraps a stream-muxer factory (yamux's) so that the streams libp2p opens for one protocol that
 * `optimistic` accepts skip the negotiation's round trip.
 */
export function optimisticSelect<C>(
  muxer: (components: C) => StreamMuxerFactory,
  optimistic: (protocol: string) => boolean,
  onRefused?: (stream: Stream, protocol: string) => void,
): (components: C) => StreamMuxerFactory {
  return adaptMuxers(muxer, (m) => {
    const create = m.createStream.bind(m);
    m.createStream = async (options) => {
      const stream = await create(options);
      const protocol = options?.protocol;
      const full = (options as { negotiateFully?: boolean } | undefined)?.negotiateFully;
      if (protocol !== undefined && full !== true && optimistic(protocol)) {
        selectOptimistically(stream as unknown as MuxedStream, protocol, () =>
          onRefused?.(stream, protocol),
        );
      }
      return stream;
    };
  });
}
