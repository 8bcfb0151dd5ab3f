import type { Connection, PeerId, Stream } from '@libp2p/interface';
import { lpStream } from '@libp2p/utils';
import { FieldError } from '../profile/errors.ts';
import type { ParseOptions } from '../profile/parse.ts';
import { sameBytes } from '../util/bytes.ts';
import {
  CodecError,
  decodeRequest,
  encodeMessage,
  INDEX_PROTOCOL,
  type Request,
  type RequestType,
  type Response,
  WIRE_VERSION,
} from './codec.ts';
import { deadline } from './deadline.ts';
import type { CidxLibp2p } from './libp2p.ts';
import type { Meter } from './meter.ts';
import { RateWindows } from './rate-window.ts';
import { RecordError } from './records.ts';
import { labelStream } from './wire-meter.ts';

/** Answers one request type. Validation of the request's records is its first step. */
export interface Handler<T extends RequestType = RequestType> {
  handle(from: PeerId, req: Extract<Request, { t: T }>): Promise<Response>;
}
export type Handlers = { [T in RequestType]: Handler<T> };

export interface ServerOptions {
  /** Bound on reading a request and writing its answer (ms). */
  timeoutMs: number;
  maxFrameBytes: number;
  /** Streams of the cidx protocol served at once, per connection. */
  maxInboundStreams: number;
  /** Requests one peer may make per second before it is answered `busy`. */
  peerRequestsPerSecond: number;
  /** Profile size limits, checked on a query's profile before it is validated in full. */
  profileLimits?: ParseOptions;
  /** This swarm's parameters digest and parameters (sent back on a mismatch). */
  swarmDigest: Uint8Array;
  swarmParams: unknown;
  /** Observer of every remote request served: its type and outcome (`ok` or an error code). */
  onServed?: ServedObserver;
  /** The clock of the rate windows, in ms (default Date.now; tests move it). */
  now?: () => number;
  /**
   * Whether the node's DHT of that name serves (server mode). Writes to a DHT in client mode
   * are refused with `not-serving`: such a node is in nobody's routing table and must hold
   * nothing (a requester with a stale view then asks the next replica). Absent: always serves.
   */
  serves?: (dht: 'profiles' | 'addresses') => boolean;
}

/** The requests that write to a DHT's share of the index, and the DHT they write to. */
const WRITES: Partial<Record<RequestType, 'profiles' | 'addresses'>> = {
  store: 'profiles',
  update: 'profiles',
  'contacts-put': 'addresses',
};

/**
 * `outcome` is `ok`, the error code answered (`busy` when refused by the rate limit) or
 * `aborted` (oversized frame, timeout, reset stream: nothing could be answered).
 */
export type ServedObserver = (type: RequestType | 'unknown', outcome: string) => void;

/**
 * The responder side of the cidx protocol: reads a request, checks the swarm digest,
 * dispatches it to the handler of its type and writes the answer. Local requests (the node is
 * among the closest peers of a key) go through `dispatch` directly, with the same checks.
 */
export class IndexServer {
  readonly #libp2p: CidxLibp2p;
  readonly #handlers: Handlers;
  readonly #opts: ServerOptions;
  readonly #meter: Meter;
  readonly #rate: RateWindows;

  constructor(libp2p: CidxLibp2p, handlers: Handlers, opts: ServerOptions, meter: Meter) {
    this.#libp2p = libp2p;
    this.#handlers = handlers;
    this.#opts = opts;
    this.#meter = meter;
    this.#rate = new RateWindows(opts.peerRequestsPerSecond, 1000, opts.now);
  }

  async start(): Promise<void> {
    await this.#libp2p.handle(
      INDEX_PROTOCOL,
      (stream, connection) => this.#serve(stream, connection),
      {
        maxInboundStreams: this.#opts.maxInboundStreams,
        // Requests to a node that cannot be dialled arrive through a relay (a limited connection).
        runOnLimitedConnection: true,
      },
    );
  }

  async stop(): Promise<void> {
    await this.#libp2p.unhandle(INDEX_PROTOCOL);
  }

  async dispatch(from: PeerId, req: Request): Promise<Response> {
    if (req.t !== 'params' && !sameBytes(req.swarm, this.#opts.swarmDigest)) {
      return fail(
        'swarm-mismatch',
        'this node runs other swarm parameters',
        this.#opts.swarmParams,
      );
    }
    const dht = WRITES[req.t];
    if (dht !== undefined && this.#opts.serves?.(dht) === false)
      return fail('not-serving', `this node's ${dht} DHT runs in client mode: it stores nothing`);
    try {
      const handler = this.#handlers[req.t] as Handler;
      return await handler.handle(from, req);
    } catch (err) {
      if (err instanceof RecordError) return fail('bad-record', err.message);
      if (err instanceof FieldError || err instanceof CodecError)
        return fail('bad-request', err.message);
      return fail('internal', (err as Error).message);
    }
  }

  async #serve(stream: Stream, connection: Connection): Promise<void> {
    const limit = deadline(this.#opts.timeoutMs);
    try {
      await this.#exchange(stream, connection, limit.signal);
    } finally {
      limit.clear();
    }
  }

  async #exchange(stream: Stream, connection: Connection, signal: AbortSignal): Promise<void> {
    const lp = lpStream(stream, { maxDataLength: this.#opts.maxFrameBytes });
    let res: Response = fail('internal', 'no answer');
    let type: RequestType | 'unknown' = 'unknown';
    try {
      const raw = (await lp.read({ signal })).subarray();
      let req: Request | undefined;
      try {
        req = decodeRequest(raw, this.#opts.profileLimits, this.#opts.maxFrameBytes);
        type = req.t;
      } catch (err) {
        res = fail('bad-request', (err as Error).message);
      }
      this.#meter.count(`in:${type}`, raw.length);
      labelStream(stream, type);
      if (req !== undefined) {
        const wait = this.#rate.take(connection.remotePeer.toString());
        res =
          wait === undefined
            ? await this.dispatch(connection.remotePeer, req)
            : fail(
                'busy',
                `rate limit: more than ${this.#opts.peerRequestsPerSecond} requests/s; retry in ${Math.ceil(wait)} ms`,
              );
      }
    } catch (err) {
      // Oversized frame, timeout or a reset stream: nothing sensible can be answered.
      this.#opts.onServed?.(type, 'aborted');
      stream.abort(err as Error);
      return;
    }
    this.#opts.onServed?.(type, res.ok ? 'ok' : res.code);
    try {
      const out = encodeMessage(res);
      await lp.write(out, { signal });
      this.#meter.count(`out:${type}-response`, out.length);
      await stream.close({ signal });
    } catch (err) {
      stream.abort(err as Error);
    }
  }
}

export function ok(body: Omit<Extract<Response, { ok: true }>, 'v' | 'ok'> = {}): Response {
  return { v: WIRE_VERSION, ok: true, ...body };
}

/** The response schema's bound on an error message; longer ones would void the whole answer. */
const MAX_MSG_CHARS = 4096;

export function fail(
  code: Extract<Response, { ok: false }>['code'],
  message: string,
  params?: unknown,
): Response {
  const msg = message.length > MAX_MSG_CHARS ? `${message.slice(0, MAX_MSG_CHARS - 1)}…` : message;
  return params === undefined
    ? { v: WIRE_VERSION, ok: false, code, msg }
    : { v: WIRE_VERSION, ok: false, code, msg, params };
}
