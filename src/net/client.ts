import type { PeerId } from '@libp2p/interface';
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
}

/**
 * Sends one request on a fresh stream of the cidx protocol, on the connection libp2p holds to
 * the peer (a connection per request costs an identify exchange each time), and reads one
 * response.
 */
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
    try {
      // A peer that cannot be dialled is reached through a relay, on a connection the relay
      // bounds in time and bytes (libp2p calls it limited); a request fits in those bounds.
      const stream = await this.#libp2p.dialProtocol(peer, INDEX_PROTOCOL, {
        signal,
        runOnLimitedConnection: true,
      });
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
    }
  }
}
