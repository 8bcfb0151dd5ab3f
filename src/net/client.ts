import type { Connection, PeerId } from '@libp2p/interface';
import { peerIdFromString } from '@libp2p/peer-id';
import { lpStream } from '@libp2p/utils';
import type { Multiaddr } from '@multiformats/multiaddr';
import {
  decodeResponse,
  deflatedQuery,
  encodeMessage,
  INDEX_PROTOCOL,
  type OkResponse,
  type Request,
} from './codec.ts';
import { deadline } from './deadline.ts';
import type { CidxLibp2p } from './libp2p.ts';
import type { Meter } from './meter.ts';
import type { Deadlines } from './round-trips.ts';
import { labelStream } from './wire-meter.ts';

/** A peer answered with an error (its code and message). */
export class RemoteError extends Error {
  readonly code: string;
  readonly params: unknown;
  constructor(code: string, message: string, params?: unknown) {
    super(`${code}: ${message}`);
    this.name = 'RemoteError';
    this.code = code;
    this.params = params;
  }
}

export interface ClientOptions {
  /** Bound on a whole exchange: dial, write, read (ms). */
  timeoutMs: number;
  /** Largest frame sent or accepted (bytes). */
  maxFrameBytes: number;
  /**
   * Deadlines that follow the round trips seen (round-trips.ts): a new connection's dial, and
   * the request on an open one, each given up on at its own deadline within `timeoutMs`.
   * Without them every exchange has `timeoutMs`.
   */
  roundTrips?: { dial: Deadlines; request: Deadlines };
  /** A query's profile deflated (query-deflate.ts); default on. */
  deflate?: boolean;
}

/** Peers remembered as reading only plain queries; the oldest forgotten past this many. */
const MAX_PLAIN_ONLY = 4096;

/**
 * Sends one request on a fresh stream of the cidx protocol, on the connection libp2p holds to
 * the peer (a connection per request costs an identify exchange each time), and reads one
 * response.
 */
export class IndexClient {
  readonly #libp2p: CidxLibp2p;
  readonly #opts: ClientOptions;
  readonly #meter: Meter;
  /** Peers that answered a deflated query with bad-request: nodes that predate it. */
  readonly #plainOnly = new Set<string>();

  constructor(libp2p: CidxLibp2p, opts: ClientOptions, meter: Meter) {
    this.#libp2p = libp2p;
    this.#opts = opts;
    this.#meter = meter;
  }

  async request(peer: PeerId | Multiaddr, req: Request, outer?: AbortSignal): Promise<OkResponse> {
    const id = peerIdOf(peer);
    const plain = encodeMessage(req);
    if (plain.length > this.#opts.maxFrameBytes) {
      throw new RangeError(
        `${req.t} request of ${plain.length} bytes exceeds the ${this.#opts.maxFrameBytes}-byte frame limit`,
      );
    }
    // Shorter than `plain` whenever there is one: pz is shorter than the profile it replaces.
    const deflated =
      this.#opts.deflate !== false && !(id !== undefined && this.#plainOnly.has(id))
        ? deflatedQuery(req)
        : undefined;
    const limit = deadline(this.#opts.timeoutMs, outer);
    try {
      const dialled = await this.#connect(peer, id, limit.signal);
      const to = dialled ?? peer;
      if (deflated === undefined) return await this.#exchange(to, id, req, plain, limit.signal);
      try {
        return await this.#exchange(to, id, req, deflated, limit.signal);
      } catch (err) {
        // A node that predates deflated profiles reads a query without one: bad-request. It
        // is asked again as before, and from now on only so.
        const older =
          err instanceof RemoteError && err.code === 'bad-request' && /profile/.test(err.message);
        if (!older || id === undefined) throw err;
        this.#plainOnly.add(id);
        if (this.#plainOnly.size > MAX_PLAIN_ONLY)
          this.#plainOnly.delete(this.#plainOnly.values().next().value as string);
        return await this.#exchange(to, id, req, plain, limit.signal);
      }
    } finally {
      limit.clear();
    }
  }

  /**
   * A dial when no connection is open, at the dial deadline (and its duration observed); the
   * connection it opened, on which the request then goes: libp2p would not open a stream on a
   * relayed (limited) connection it is asked to find again, and would dial a second one.
   */
  async #connect(
    peer: PeerId | Multiaddr,
    id: string | undefined,
    outer: AbortSignal,
  ): Promise<Connection | undefined> {
    const rt = this.#opts.roundTrips;
    if (rt === undefined || id === undefined) return;
    if (this.#libp2p.getConnections(peerIdFromString(id)).length > 0) return;
    const ms = rt.dial.deadline();
    const phase = deadline(ms, outer);
    const t0 = performance.now();
    try {
      const conn = await this.#libp2p.dial(peer, { signal: phase.signal });
      rt.dial.done(performance.now() - t0);
      return conn;
    } catch (err) {
      if (phase.signal.aborted && !outer.aborted) {
        rt.dial.timedOut(ms, undefined, t0);
        rt.request.miss(id);
      }
      throw err;
    } finally {
      phase.clear();
    }
  }

  /** One stream: write the request, read the answer, at the request deadline of the peer. */
  async #exchange(
    peer: PeerId | Multiaddr | Connection,
    id: string | undefined,
    req: Request,
    bytes: Uint8Array,
    outer: AbortSignal,
  ): Promise<OkResponse> {
    // A routed request waits for every hop after the first too: its deadline is a request's
    // for each hop it may take, and its duration is no round trip to learn from.
    const hops = req.t === 'route' ? req.hops + 1 : 0;
    const rt = hops > 0 ? undefined : this.#opts.roundTrips?.request;
    const all = this.#opts.roundTrips?.request;
    const ms =
      hops > 0 && all !== undefined
        ? Math.min(all.boundMs, Math.max(all.deadline(id), all.deadline()) * hops)
        : (rt?.deadline(id) ?? this.#opts.timeoutMs);
    const phase = deadline(ms, outer);
    const { signal } = phase;
    const t0 = performance.now();
    try {
      // A peer that cannot be dialled is reached through a relay, on a connection the relay
      // bounds in time and bytes (libp2p calls it limited); a request fits in those bounds.
      const options = { signal, runOnLimitedConnection: true };
      const stream =
        'newStream' in peer && peer.status === 'open'
          ? await peer.newStream(INDEX_PROTOCOL, options)
          : await this.#libp2p.dialProtocol(
              'newStream' in peer ? peer.remotePeer : peer,
              INDEX_PROTOCOL,
              options,
            );
      try {
        const lp = lpStream(stream, { maxDataLength: this.#opts.maxFrameBytes });
        labelStream(stream, req.t);
        await lp.write(bytes, { signal });
        this.#meter.count(`out:${req.t}`, bytes.length);
        const raw = (await lp.read({ signal })).subarray();
        this.#meter.count(`in:${req.t}-response`, raw.length);
        rt?.done(performance.now() - t0, id);
        if (hops > 0 && id !== undefined) all?.heard(id);
        await stream.close({ signal });
        const res = decodeResponse(raw);
        if (!res.ok) throw new RemoteError(res.code, res.msg, res.params);
        return res;
      } catch (err) {
        stream.abort(err as Error);
        throw err;
      }
    } catch (err) {
      if (signal.aborted && !outer.aborted) rt?.timedOut(ms, id, t0);
      // A route that ran out: forwarders give up on a silent next hop sooner and answer, so
      // most likely the first hop is silent. Counted and remembered, without backing off.
      if (hops > 0 && signal.aborted && !outer.aborted && id !== undefined && all !== undefined) {
        all.timeouts++;
        all.miss(id);
      }
      throw err;
    } finally {
      phase.clear();
    }
  }
}

/** The peer id a request goes to: the id itself, or the last /p2p/ of an address. */
function peerIdOf(peer: PeerId | Multiaddr): string | undefined {
  if ('getComponents' in peer) return peer.getComponents().findLast((c) => c.name === 'p2p')?.value;
  return peer.toString();
}
