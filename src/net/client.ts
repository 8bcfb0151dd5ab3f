import type { Connection, PeerId } from '@libp2p/interface';
import { lpStream } from '@libp2p/utils';
import type { Multiaddr } from '@multiformats/multiaddr';
import {
  decodeResponse,
  encodeMessage,
  INDEX_PROTOCOL,
  type OkResponse,
  type Request,
} from './codec.ts';
import { deadline } from './deadline.ts';
import type { CidxLibp2p } from './libp2p.ts';
import type { Meter } from './meter.ts';

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
   * Use the connection libp2p holds to the peer (default), or open one for this request alone
   * and close it after: only to measure what reuse saves.
   */
  reuseConnections?: boolean;
}

/** Sends one request on a fresh stream of the cidx protocol and reads one response. */
export class IndexClient {
  readonly #libp2p: CidxLibp2p;
  readonly #opts: ClientOptions;
  readonly #meter: Meter;

  constructor(libp2p: CidxLibp2p, opts: ClientOptions, meter: Meter) {
    this.#libp2p = libp2p;
    this.#opts = opts;
    this.#meter = meter;
  }

  async request(peer: PeerId | Multiaddr, req: Request, outer?: AbortSignal): Promise<OkResponse> {
    const bytes = encodeMessage(req);
    if (bytes.length > this.#opts.maxFrameBytes) {
      throw new RangeError(
        `${req.t} request of ${bytes.length} bytes exceeds the ${this.#opts.maxFrameBytes}-byte frame limit`,
      );
    }
    const limit = deadline(this.#opts.timeoutMs, outer);
    const { signal } = limit;
    let own: Connection | undefined;
    try {
      if (this.#opts.reuseConnections === false)
        own = await this.#libp2p.dial(peer, { signal, force: true });
      // A peer that cannot be dialled is reached through a relay, on a connection the relay
      // bounds in time and bytes (libp2p calls it limited); a request fits in those bounds.
      const opts = { signal, runOnLimitedConnection: true };
      const stream =
        own === undefined
          ? await this.#libp2p.dialProtocol(peer, INDEX_PROTOCOL, opts)
          : await own.newStream(INDEX_PROTOCOL, opts);
      try {
        const lp = lpStream(stream, { maxDataLength: this.#opts.maxFrameBytes });
        await lp.write(bytes, { signal });
        this.#meter.count(`out:${req.t}`, bytes.length);
        const raw = (await lp.read({ signal })).subarray();
        this.#meter.count(`in:${req.t}-response`, raw.length);
        await stream.close({ signal });
        const res = decodeResponse(raw);
        if (!res.ok) throw new RemoteError(res.code, res.msg, res.params);
        return res;
      } catch (err) {
        stream.abort(err as Error);
        throw err;
      }
    } finally {
      limit.clear();
      const conn = own;
      await conn
        ?.close({ signal: AbortSignal.timeout(this.#opts.timeoutMs) })
        .catch(() => conn.abort(new Error('close timed out')));
    }
  }
}
