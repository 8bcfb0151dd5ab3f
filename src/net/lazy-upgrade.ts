/**
 * A new connection's upgrade without multistream-select's round trips.
 *
 * libp2p's upgrader negotiates a new connection's encryption with multistream-select and waits
 * for the answer before the handshake's first message; over an encryption that does not name
 * the muxer in its handshake (plaintext) it negotiates the muxer the same way. Each costs a
 * round trip before the first request. A dialer that proposes one protocol it knows the peer
 * speaks can send its first message behind the proposal and read the echo later, as
 * optimistic-select.ts does for streams and the multistream-select spec allows: the responder's
 * side is unchanged (js-libp2p hands bytes behind a proposal to the protocol), so nodes with and
 * without this interoperate.
 *
 * Written here because no library does it: libp2p's upgrader calls multistream-select itself,
 * with no option to skip the wait. A wrapper around each transport hands the upgrader of its
 * outbound dials a connection that answers the upgrader's proposal itself — the echo the peer
 * will send — and takes the peer's real echo off what arrives. It applies only where the
 * upgrader has one choice (one encrypter, one muxer): with several, a refusal must fall back to
 * the next, which needs the answer first. A refusal ("na") aborts the connection, and the
 * upgrade fails as it would have. Relayed dials use libp2p's own upgrader and are unchanged.
 */
import type {
  ConnectionProtector,
  MultiaddrConnection,
  Transport,
  Upgrader,
} from '@libp2p/interface';
import { Uint8ArrayList } from 'uint8arraylist';
import { type Bytes, HEADER, nameOf, takeEcho } from './multistream.ts';

/** The encryption's selection and, after a plaintext exchange, the muxer's. */
const MAX_SELECTS = 2;
/** Writes looked at for a selection: the proposal, a handshake message, the next proposal. */
const MAX_SENDS = 4;

/** The parts of js-libp2p 3.x's AbstractMessageStream this replaces on one connection. */
export interface ByteConnection {
  send(data: Bytes): boolean;
  onData(data: Bytes): void;
  abort(err: Error): void;
}

/** The one of `protocols` that `data` proposes (header and name, nothing else), if any. */
function proposal(data: Bytes, protocols: ReadonlySet<string>): string | undefined {
  for (const p of protocols) {
    const name = nameOf(p);
    if (data.byteLength !== HEADER.byteLength + name.byteLength) continue;
    const bytes = data instanceof Uint8Array ? data : data.subarray();
    if (
      bytes.subarray(0, HEADER.byteLength).every((b, i) => b === HEADER[i]) &&
      bytes.subarray(HEADER.byteLength).every((b, i) => b === name[i])
    ) {
      return p;
    }
  }
  return undefined;
}

/**
 * Makes an outbound connection answer its own proposals of `protocols` at once and take the
 * peer's echoes off what arrives. Looks at its first writes only: a first write that proposes
 * nothing (a private network's nonce) ends it.
 */
export function negotiateLazily(conn: ByteConnection, protocols: ReadonlySet<string>): void {
  const original = conn.send;
  const send = original.bind(conn);
  const onData = conn.onData.bind(conn);
  let sends = 0;
  let selects = 0;
  /** An echo is still to come, first in what arrives. */
  let pending = false;

  conn.send = (data) => {
    sends++;
    const p = !pending && selects < MAX_SELECTS ? proposal(data, protocols) : undefined;
    if (p === undefined) {
      if (sends === 1 || sends >= MAX_SENDS || selects >= MAX_SELECTS) {
        // Nothing more to look at: writes go straight to the connection again. Put back, not
        // deleted: deleting a property V8 did not add last turns the object into a dictionary,
        // a slower and larger object for the rest of the connection's life.
        conn.send = original;
      }
      return send(data);
    }
    selects++;
    pending = true;
    takeEcho(
      conn,
      p,
      (err) => conn.abort(err),
      () => {
        pending = false;
      },
    );
    const more = send(data);
    // The peer answers a proposal it accepts with the same two lines; they are read now. Nothing
    // the peer sends can arrive before this: it has not seen the proposal yet.
    onData(new Uint8ArrayList(HEADER, nameOf(p)));
    return more;
  };
}

/**
 * The protocols a dialer may propose lazily: the encrypter's and the muxer's, each where it is
 * the upgrader's only one.
 */
function lazyProtocols(up: Upgrader): Set<string> {
  const out = new Set<string>();
  for (const list of [up.getConnectionEncrypters(), up.getStreamMuxers()]) {
    if (list.size === 1) for (const p of list.keys()) out.add(p);
  }
  return out;
}

/** Wraps transports (and a private network's protector) so their dials upgrade lazily. */
export class LazyUpgrade {
  /** Outbound connections being upgraded, and their lazy protocols (a protector's stream over
   * one is wrapped too). */
  readonly #outbound = new WeakMap<object, Set<string>>();
  readonly #upgraders = new WeakMap<Upgrader, Upgrader>();

  transport<C>(factory: (components: C) => Transport): (components: C) => Transport {
    return (components) => {
      const t = factory(components);
      const dial = t.dial.bind(t);
      t.dial = (ma, options) =>
        dial(ma, { ...options, upgrader: this.#upgrader(options.upgrader) });
      return t;
    };
  }

  protector<C>(
    factory: (components: C) => ConnectionProtector,
  ): (components: C) => ConnectionProtector {
    return (components) => {
      const p = factory(components);
      const protect = p.protect.bind(p);
      p.protect = async (conn, options) => {
        const out = await protect(conn, options);
        const protocols = this.#outbound.get(conn);
        if (protocols !== undefined) negotiateLazily(out as unknown as ByteConnection, protocols);
        return out;
      };
      return p;
    };
  }

  #upgrader(up: Upgrader): Upgrader {
    const known = this.#upgraders.get(up);
    if (known !== undefined) return known;
    const lazy = lazyProtocols(up);
    const upgradeOutbound: Upgrader['upgradeOutbound'] = (maConn, opts) => {
      // `initiator: false`: this side answers the selections (a hole-punched connection).
      if (opts.initiator !== false && lazy.size > 0) {
        this.#outbound.set(maConn, lazy);
        negotiateLazily(maConn as MultiaddrConnection & ByteConnection, lazy);
      }
      return up.upgradeOutbound(maConn, opts);
    };
    const wrapped = new Proxy(up, {
      get(target, prop) {
        if (prop === 'upgradeOutbound') return upgradeOutbound;
        const v = Reflect.get(target, prop, target);
        return typeof v === 'function' ? v.bind(target) : v;
      },
    });
    this.#upgraders.set(up, wrapped);
    return wrapped;
  }
}
