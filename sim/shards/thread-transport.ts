/**
 * The transport of a shard's nodes: a dial to a node of the same shard is the simulator's own
 * in-process transport (sim/network/transport.ts); a dial to a node of another shard crosses
 * to that shard's worker thread over a MessageChannel of its own, one per connection. libp2p's
 * whole stack (plaintext upgrade, yamux, every protocol) runs over both.
 *
 * Each end of a connection between threads is a SimConnection of its own thread's network
 * model, whose other end is a stand-in (PortEnd) that posts what the model delivers to the
 * port: what a node sends waits for its uplink and the link's one-way delay in the sender's
 * thread and is handed over on arrival. Every thread draws the same regions and delays from the
 * run's seed and the nodes' names, so both ends agree on the link.
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
import { type Multiaddr, multiaddr } from '@multiformats/multiaddr';
import type { Member } from '../network/member.ts';
import { CLOSE, DATA, type Kind, type NetworkModel, RESET } from '../network/model.ts';
import {
  memoryAddr,
  type PeerEnd,
  SimConnection,
  type SimTransport,
} from '../network/transport.ts';

type Chunk = Parameters<SimConnection['sendData']>[0];

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
  /** The dialling node: its listen address, network name and peer id. */
  fromAddr: string;
  fromName: string;
  fromPeer: string;
  port: MessagePort;
}

/** The end in the other thread, as this thread's model sees it: its node, and the port. */
class PortEnd implements PeerEnd {
  readonly local: Member;
  readonly #port: MessagePort;

  constructor(remote: Member, port: MessagePort) {
    this.local = remote;
    this.#port = port;
  }

  receive(kind: Kind, data: Chunk | undefined): void {
    if (kind === DATA) {
      if (data === undefined) return;
      // A fresh copy, moved to the other thread: posting a view would clone its whole buffer
      // (often one of Node's shared 8 KiB pool slabs), and moving it would detach others'
      // bytes. (Not `.slice()`: on a Node Buffer it returns a view.)
      const src = data instanceof Uint8Array ? data : data.subarray();
      const d = new Uint8Array(src.byteLength);
      d.set(src);
      this.#port.postMessage({ k: 'data', d } satisfies Frame, [d.buffer]);
    } else this.#port.postMessage({ k: kind === CLOSE ? 'close' : 'reset' } satisfies Frame);
  }

  abort(): void {
    this.#port.postMessage({ k: 'reset' } satisfies Frame);
  }
}

/**
 * Ties a local connection end to a port: frames that arrive are handed to it, its end closes
 * the port. Resolves with the other shard's answer (true once accepted; false when refused or
 * the port closed first).
 */
function bind(conn: SimConnection, port: MessagePort): Promise<boolean> {
  let answer: (ok: boolean) => void = () => {};
  const answered = new Promise<boolean>((resolve) => {
    answer = resolve;
  });
  // One listener from the start: frames that follow the answer are never missed.
  port.on('message', (f: Frame) => {
    // A Uint8Array where the model hands on a list: the connection takes either.
    if (f.k === 'data') conn.receive(DATA, f.d as unknown as Chunk);
    else if (f.k === 'accept' || f.k === 'refuse') answer(f.k === 'accept');
    else conn.receive(f.k === 'close' ? CLOSE : RESET, undefined);
  });
  // The port closed without a goodbye (the other thread stopped): the connection is gone.
  port.on('close', () => {
    answer(false);
    conn.receive(RESET, undefined);
  });
  conn.addEventListener('close', () => port.close(), { once: true });
  return answered;
}

/** The member for a node of another thread: added under its name the first time it is met. */
function memberOf(net: NetworkModel, name: string): Member {
  return net.member(name) ?? net.add(name);
}

let connectionIds = 0;

/** Connections this thread's nodes opened to nodes of other shards (what crossed threads). */
export const crossed = { connections: 0 };

/** Where a node listens: its shard and its network name (undefined for other addresses). */
export type Locate = (addr: string) => { shard: number; name: string } | undefined;

/**
 * A shard's node's transport: its own shard through `local`, others through `links` (the
 * MessagePort to each other shard, by number).
 */
export class ShardTransport implements Transport {
  readonly [Symbol.toStringTag] = '@cidx/sim-shards';
  readonly [transportSymbol] = true as const;
  readonly [serviceCapabilities] = ['@libp2p/transport'];
  readonly #local: SimTransport;
  readonly #links: ReadonlyMap<number, MessagePort>;
  readonly #shard: number;
  readonly #locate: Locate;
  readonly #self: string;
  readonly #log: Logger;

  constructor(o: {
    local: SimTransport;
    links: ReadonlyMap<number, MessagePort>;
    shard: number;
    locate: Locate;
    /** This node's listen address. */
    self: string;
    log: Logger;
  }) {
    this.#local = o.local;
    this.#links = o.links;
    this.#shard = o.shard;
    this.#locate = o.locate;
    this.#self = o.self;
    this.#log = o.log;
  }

  /**
   * As the in-process transport: the first packet reaches the other node after the one-way
   * delay, the answer comes back after the other, then libp2p upgrades the connection.
   */
  async dial(ma: Multiaddr, options: DialTransportOptions): Promise<Connection> {
    options.signal.throwIfAborted();
    const addr = memoryAddr(ma);
    const where = this.#locate(addr);
    if (where === undefined || where.shard === this.#shard) return this.#local.dial(ma, options);
    const link = this.#links.get(where.shard);
    if (link === undefined) throw new ConnectionFailedError(`no shard ${where.shard} for ${ma}`);
    const net = this.#local.net;
    const from = this.#local.member;
    const to = memberOf(net, where.name);
    const there = net.oneWayMs(from, to);
    const back = net.oneWayMs(to, from);
    await net.sleep(there, options.signal);
    const { port1, port2 } = new MessageChannel();
    const remotePeer = ma.getComponents().find((c) => c.name === 'p2p')?.value;
    const conn = new SimConnection(net, from, there, {
      remoteAddr: multiaddr(remotePeer === undefined ? addr : `${addr}/p2p/${remotePeer}`),
      direction: 'outbound',
      log: this.#log.newScope(`connection:${connectionIds++}`),
    });
    conn.peer = new PortEnd(to, port1);
    const accepted = bind(conn, port1);
    const request: DialRequest = {
      addr,
      fromAddr: this.#self,
      fromName: from.name,
      fromPeer: this.#local.peerId,
      port: port2,
    };
    link.postMessage(request, [port2]);
    const aborted = new Promise<never>((_, reject) => {
      const abort = () => reject(options.signal.reason);
      options.signal.addEventListener('abort', abort, { once: true });
      void accepted.finally(() => options.signal.removeEventListener('abort', abort));
    });
    aborted.catch(() => {});
    try {
      if (!(await Promise.race([accepted, aborted])))
        throw new ConnectionFailedError(`connection refused by ${ma}`);
      crossed.connections++;
      net.opened(conn, there + back);
      conn.addEventListener('close', () => net.closed(conn), { once: true });
      await net.sleep(back, options.signal);
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
    const dialer = memberOf(net, r.fromName);
    const conn = new SimConnection(net, listener.member, net.oneWayMs(listener.member, dialer), {
      remoteAddr: multiaddr(`${r.fromAddr}-outgoing/p2p/${r.fromPeer}`),
      direction: 'inbound',
      log: log.newScope(`connection:${connectionIds++}`),
    });
    conn.peer = new PortEnd(dialer, r.port);
    void bind(conn, r.port);
    r.port.postMessage({ k: 'accept' } satisfies Frame);
    listener.accept(conn);
  });
}
