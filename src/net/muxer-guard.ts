/**
 * A connection ends with its stream muxer.
 *
 * js-libp2p 3.x keeps a connection open after its muxer has stopped: a muxer that aborts (on a
 * protocol error, too many early streams, a peer's GoAway) sends GoAway and stops, but nothing
 * closes the transport under it, and the connection manager still hands the connection to
 * every dial of that peer. Every `newStream` on it then fails with "The connection muxer is
 * closed" until something else closes the socket — no request reaches the peer, and no new
 * connection is dialled. Written here because no option of libp2p or yamux does it: a wrapper
 * around a stream-muxer factory that closes the muxer's transport when the muxer stops while
 * the transport is open. libp2p then drops the connection, and the next request dials anew.
 */
import type { MessageStream, StreamMuxer, StreamMuxerFactory } from '@libp2p/interface';

/** The part of js-libp2p 3.x's AbstractStreamMuxer the guard replaces on one instance. */
interface StoppingMuxer {
  abort(err: Error): void;
  /** Called when the transport closed, and by yamux on a peer's GoAway with no error. */
  onTransportClosed(err?: Error): void;
}

/** Makes `muxer` close `transport` whenever it stops while the transport is still open. */
export function closeWithMuxer(muxer: StreamMuxer, transport: MessageStream): void {
  const m = muxer as unknown as StoppingMuxer;
  const abort = m.abort.bind(m);
  const onTransportClosed = m.onTransportClosed?.bind(m);
  const stopTransport = (err?: Error) => {
    if (transport.status !== 'open') return;
    if (err !== undefined) {
      transport.abort(err);
      return;
    }
    // The peer's GoAway without error: it sent what it had, so a graceful close loses nothing.
    // (A muxer closed here is closed by libp2p's connection, which then closes the transport.)
    transport.close().catch((e: Error) => transport.abort(e));
  };
  m.abort = (err) => {
    abort(err);
    stopTransport(err);
  };
  if (onTransportClosed !== undefined) {
    m.onTransportClosed = (err) => {
      onTransportClosed(err);
      stopTransport(err);
    };
  }
}

/** A stream-muxer factory whose every new muxer `adapt` has seen first, with its transport. */
export function adaptMuxers<C>(
  muxer: (components: C) => StreamMuxerFactory,
  adapt: (m: StreamMuxer, transport: MessageStream) => void,
): (components: C) => StreamMuxerFactory {
  return (components) => {
    const factory = muxer(components);
    return {
      protocol: factory.protocol,
      createStreamMuxer(transport) {
        const m = factory.createStreamMuxer(transport);
        adapt(m, transport);
        return m;
      },
    };
  };
}

/** Wraps a stream-muxer factory so that each of its muxers takes its connection down with it. */
export function guardMuxer<C>(
  muxer: (components: C) => StreamMuxerFactory,
): (components: C) => StreamMuxerFactory {
  return adaptMuxers(muxer, closeWithMuxer);
}
