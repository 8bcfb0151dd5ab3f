/**
 * The transport of a shard's nodes: a dial to a node of the same shard is the simulator's own
 * in-process transport (sim/network/transport.ts); a dial to a node of another shard crosses
 * to that shard's worker thread over a MessageChannel of its own, one per connection. libp2p's
 * whole stack (plaintext upgrade, yamux, every protocol) runs over both.
 *
 * Why not TCP between threads: both ends of every connection live in this one process, two
 * descriptors each, and a 500-node swarm holds ≈ 17,000 connections — over the 20,000 open
 * files this machine allows a process, and over most systems' defaults. A MessagePort holds no
 * descriptor, and no library provides a libp2p transport between worker threads.
 */
import type { MessagePort } from 'node:worker_threads';
import { MessageChannel } from 'node:worker_threads';
import {
  type Connection,
  ConnectionFailedError,
  type CreateListenerOptions,
  type DialTransportOptions,
  type Listener,
  type Logger,
  serviceCapabilities,
  type Transport,
  transportSymbol,
} from '@libp2p/interface';
import { AbstractMultiaddrConnection } from '@libp2p/utils';
import { type Multiaddr, multiaddr } from '@multiformats/multiaddr';
import type { NetworkModel } from '../network/model.ts';
import { memoryAddr, type SimConnection, type SimTransport } from '../network/transport.ts';

const MAX_MESSAGE_SIZE = 65_536;

type Chunk = Parameters<AbstractMultiaddrConnection['sendData']>[0];

/**
 * What crosses a connection's port: first the listening shard's answer (accepted, or nobody
 * listens there), then the bytes and the end.
 */
type Frame =
  | { k: 'accept' }
  | { k: 'refuse' }
  | { k: 'data'; d: Uint8Array }
  | { k: 'close' }
  | { k: 'reset' };

/** Sent over the link between two shards to open a connection to one of the receiver's nodes. */
export interface DialRequest {
  addr: string;
  /** The dialling node: its listen address and peer id (the listener's remote address). */
  fromAddr: string;
  fromPeer: string;
  port: MessagePort;
}

/** One end of a connection between two shards. */
class PortConnection extends AbstractMultiaddrConnection {
  readonly #port: MessagePort;
  /** The dialling end: whether the other shard accepted (settled by its first frame). */
  readonly accepted: Promise<boolean>;

  constructor(
    port: MessagePort,
    init: { remoteAddr: Multiaddr; direction: 'inbound' | 'outbound'; log: Logger },
  ) {
    super({ ...init, maxMessageSize: MAX_MESSAGE_SIZE });
    this.#port = port;
    let answer: (ok: boolean) => void = () => {};
    this.accepted = new Promise((resolve) => {
      answer = resolve;
    });
    // One listener from the start: frames that follow the answer are never missed.
    port.on('message', (f: Frame) => {
      if (f.k === 'data') this.onData(f.d);
      else if (f.k === 'accept' || f.k === 'refuse') answer(f.k === 'accept');
      else if (f.k === 'close') this.onTransportClosed();
      else if (this.status === 'open' || this.status === 'closing') this.onRemoteReset();
    });
    // The other end's port closed without a goodbye (its thread stopped): the connection is gone.
    port.on('close', () => {
      answer(false);
      if (this.status === 'open' || this.status === 'closing') this.onRemoteReset();
    });
    this.addEventListener('close', () => port.close(), { once: true });
  }

  sendData(data: Chunk): { sentBytes: number; canSendMore: boolean } {
    // A fresh copy, moved to the other thread: posting a view would clone its whole buffer
    // (often one of Node's shared 8 KiB pool slabs), and moving it would detach others' bytes.
    // (Not `.slice()`: on a Node Buffer it returns a view.)
    const src = data instanceof Uint8Array ? data : data.subarray();
    const d = new Uint8Array(src.byteLength);
    d.set(src);
    this.#port.postMessage({ k: 'data', d } satisfies Frame, [d.buffer]);
    // d is detached now: its length reads 0.
    return { sentBytes: src.byteLength, canSendMore: true };
  }

  sendReset(): void {
    this.#port.postMessage({ k: 'reset' } satisfies Frame);
  }

  async sendClose(options?: { signal?: AbortSignal }): Promise<void> {
    this.#port.postMessage({ k: 'close' } satisfies Frame);
    options?.signal?.throwIfAborted();
  }

  sendPause(): void {
    // read backpressure is not modelled (as in the in-process transport)
  }

  sendResume(): void {}
}

let connectionIds = 0;

/** Connections this thread's nodes opened to nodes of other shards (what crossed threads). */
export const crossed = { connections: 0 };

/**
 * A shard's node's transport: its own shard through `local`, others through `links` (the
 * MessagePort to each other shard, by number). `shardOf` names the shard of a /memory address.
 */
export class ShardTransport implements Transport {
  readonly [Symbol.toStringTag] = '@cidx/sim-shards';
  readonly [transportSymbol] = true as const;
  readonly [serviceCapabilities] = ['@libp2p/transport'];
  readonly #local: SimTransport;
  readonly #links: ReadonlyMap<number, MessagePort>;
  readonly #shard: number;
  readonly #shardOf: (addr: string) => number | undefined;
  readonly #self: string;
  readonly #log: Logger;

  constructor(o: {
    local: SimTransport;
    links: ReadonlyMap<number, MessagePort>;
    shard: number;
    shardOf: (addr: string) => number | undefined;
    /** This node's listen address. */
    self: string;
    log: Logger;
  }) {
    this.#local = o.local;
    this.#links = o.links;
    this.#shard = o.shard;
    this.#shardOf = o.shardOf;
    this.#self = o.self;
    this.#log = o.log;
  }

  async dial(ma: Multiaddr, options: DialTransportOptions): Promise<Connection> {
    options.signal.throwIfAborted();
    const addr = memoryAddr(ma);
    const shard = this.#shardOf(addr);
    if (shard === undefined || shard === this.#shard) return this.#local.dial(ma, options);
    const link = this.#links.get(shard);
    if (link === undefined) throw new ConnectionFailedError(`no shard ${shard} for ${ma}`);
    const { port1, port2 } = new MessageChannel();
    const remotePeer = ma.getComponents().find((c) => c.name === 'p2p')?.value;
    const conn = new PortConnection(port1, {
      remoteAddr: multiaddr(remotePeer === undefined ? addr : `${addr}/p2p/${remotePeer}`),
      direction: 'outbound',
      log: this.#log.newScope(`connection:${connectionIds++}`),
    });
    const request: DialRequest = {
      addr,
      fromAddr: this.#self,
      fromPeer: this.#local.peerId,
      port: port2,
    };
    link.postMessage(request, [port2]);
    const aborted = new Promise<never>((_, reject) => {
      const abort = () => reject(options.signal.reason);
      options.signal.addEventListener('abort', abort, { once: true });
      void conn.accepted.finally(() => options.signal.removeEventListener('abort', abort));
    });
    aborted.catch(() => {});
    try {
      if (!(await Promise.race([conn.accepted, aborted])))
        throw new ConnectionFailedError(`No memory listener found at ${ma}`);
      crossed.connections++;
    } catch (err) {
      conn.abort(err as Error);
      throw err;
    }
    try {
      return await options.upgrader.upgradeOutbound(conn, options);
    } catch (err) {
      conn.abort(err as Error);
      throw err;
    }
  }

  createListener(options: CreateListenerOptions): Listener {
    return this.#local.createListener(options);
  }

  listenFilter(multiaddrs: Multiaddr[]): Multiaddr[] {
    return this.#local.listenFilter(multiaddrs);
  }

  dialFilter(multiaddrs: Multiaddr[]): Multiaddr[] {
    return this.#local.dialFilter(multiaddrs);
  }
}

/**
 * Answers the dials that arrive over a link from another shard: hands the inbound end to the
 * node listening at the address in this shard, or refuses.
 */
export function acceptDials(link: MessagePort, net: NetworkModel, log: Logger): void {
  link.on('message', (r: DialRequest) => {
    const listener = net.endpoint(r.addr);
    if (listener === undefined) {
      r.port.postMessage({ k: 'refuse' } satisfies Frame);
      r.port.close();
      return;
    }
    const conn = new PortConnection(r.port, {
      remoteAddr: multiaddr(`${r.fromAddr}-outgoing/p2p/${r.fromPeer}`),
      direction: 'inbound',
      log: log.newScope(`connection:${connectionIds++}`),
    });
    r.port.postMessage({ k: 'accept' } satisfies Frame);
    // The listener upgrades any MultiaddrConnection; its type names the in-process one.
    listener.accept(conn as unknown as SimConnection);
  });
}
