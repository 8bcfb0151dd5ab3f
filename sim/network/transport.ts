/**
 * A libp2p transport for nodes in one process whose connections cross the simulated network
 * (network.ts). It follows @libp2p/memory 2.x (listen on `/memory/<name>`, a pair of
 * MultiaddrConnections per dial, the same remote addresses), with the bytes handed to the
 * network instead of straight to the other end.
 *
 * Why a transport of our own: @libp2p/memory's `latency` awaits a delay per received buffer,
 * one buffer after another, so a burst of n buffers takes n × latency; it has no propagation
 * pipeline, no bandwidth and no partitions, and its registry of listeners is one module-global
 * map. No js-libp2p module models a network at the connection level (the test utilities'
 * connection pairs have no time at all), and the kernel's netem is not available here.
 */
import {
  type ComponentLogger,
  type Connection,
  ConnectionFailedError,
  type CreateListenerOptions,
  type DialTransportOptions,
  type Listener,
  type ListenerEvents,
  type Logger,
  type PeerId,
  serviceCapabilities,
  type Transport,
  TypedEventEmitter,
  transportSymbol,
  type Upgrader,
} from '@libp2p/interface';
import { AbstractMultiaddrConnection } from '@libp2p/utils';
import { CODE_MEMORY, CODE_P2P, type Multiaddr, multiaddr } from '@multiformats/multiaddr';
import type { EventHandler } from 'main-event';
import { LightListeners, type ListenOptions } from './light-listeners.ts';
import type { Member } from './member.ts';
import { CLOSE, DATA, type Endpoint, type Kind, type NetworkModel, RESET } from './model.ts';

/** What the transport takes from libp2p's components. */
export interface SimTransportComponents {
  peerId: PeerId;
  logger: ComponentLogger;
}

/** The same frame bound as @libp2p/memory: chunks of at most 64 KiB cross the network. */
const MAX_MESSAGE_SIZE = 65_536;

type Chunk = Parameters<AbstractMultiaddrConnection['sendData']>[0];

/**
 * What the network model delivers to: the other end of a connection — a SimConnection, or a
 * stand-in for an end in another thread (sim/shards) — and the node it belongs to.
 */
export interface PeerEnd {
  readonly local: Member;
  receive(kind: Kind, data: Chunk | undefined): void;
  abort(err: Error): void;
}

/** One end of a simulated connection. */
export class SimConnection extends AbstractMultiaddrConnection implements PeerEnd {
  readonly net: NetworkModel;
  /** The node at this end, and the other end once the pair is made. */
  readonly local: Member;
  peer: PeerEnd | undefined;
  /** One-way delay of what this end sends (ms), fixed for the connection's life. */
  readonly delayMs: number;
  /** Nothing to wait for: no delay, no uplink limit (the zero-cost path). */
  readonly instant: boolean;
  /** Due time of the last thing this end sent: later chunks never arrive before it. */
  lastDue = 0;
  /**
   * The listeners (light-listeners.ts), made by the first one added: the base classes'
   * constructors add theirs before this class's fields exist, so no initialiser here.
   */
  declare private listeners: LightListeners | undefined;

  constructor(
    net: NetworkModel,
    local: Member,
    delayMs: number,
    init: { remoteAddr: Multiaddr; direction: 'inbound' | 'outbound'; log: Logger },
  ) {
    super({ ...init, maxMessageSize: MAX_MESSAGE_SIZE });
    this.net = net;
    this.local = local;
    this.delayMs = delayMs;
    this.instant = delayMs === 0 && local.uplinkBps === Number.POSITIVE_INFINITY;
  }

  override addEventListener(
    type: string,
    // biome-ignore lint/suspicious/noExplicitAny: as the base class, every event type's listener
    listener: EventHandler<any> | null,
    options?: boolean | ListenOptions,
  ): void {
    this.listeners ??= new LightListeners();
    this.listeners.add(type, listener, options);
    // As the base class does: data that arrived before its first reader is handed on.
    if (type === 'message' && this.readBuffer.byteLength > 0)
      queueMicrotask(() => this.dispatchReadBuffer());
  }

  override removeEventListener(
    type: string,
    // biome-ignore lint/suspicious/noExplicitAny: as the base class, every event type's listener
    listener?: EventHandler<any> | null,
    options?: boolean | ListenOptions,
  ): void {
    this.listeners?.remove(type, listener, options);
  }

  override listenerCount(type: string): number {
    return this.listeners?.count(type) ?? 0;
  }

  override dispatchEvent(event: Event): boolean {
    return this.listeners?.dispatch(this, event) ?? !event.defaultPrevented;
  }

  sendData(data: Chunk): { sentBytes: number; canSendMore: boolean } {
    this.net.send(this, DATA, data);
    // The uplink queue in the network is the only backpressure modelled.
    return { sentBytes: data.byteLength, canSendMore: true };
  }

  sendReset(): void {
    this.net.send(this, RESET);
  }

  async sendClose(options?: { signal?: AbortSignal }): Promise<void> {
    this.net.send(this, CLOSE);
    options?.signal?.throwIfAborted();
  }

  sendPause(): void {
    // read backpressure is not modelled (as in @libp2p/memory)
  }

  sendResume(): void {}

  /** What the other end sent has arrived. */
  receive(kind: Kind, data: Chunk | undefined): void {
    if (kind === DATA) {
      if (data !== undefined) this.onData(data);
    } else if (kind === CLOSE) {
      this.onTransportClosed();
    } else if (this.status === 'open' || this.status === 'closing') {
      this.onRemoteReset();
    }
  }
}

/** Listens on `/memory/<name>` in the model's registry of addresses. */
class SimListener extends TypedEventEmitter<ListenerEvents> implements Listener, Endpoint {
  readonly #transport: SimTransport;
  readonly #upgrader: Upgrader;
  readonly #shutdown = new AbortController();
  #addr: string | undefined;
  #dialAddr: Multiaddr | undefined;

  constructor(transport: SimTransport, upgrader: Upgrader) {
    super();
    this.#transport = transport;
    this.#upgrader = upgrader;
  }

  get member(): Member {
    return this.#transport.member;
  }

  get peerId(): string {
    return this.#transport.peerId;
  }

  get dialAddr(): Multiaddr {
    if (this.#addr === undefined) throw new Error('not listening');
    this.#dialAddr ??= multiaddr(`${this.#addr}/p2p/${this.peerId}`);
    return this.#dialAddr;
  }

  async listen(ma: Multiaddr): Promise<void> {
    const addr = memoryAddr(ma);
    if (addr === '' || addr === '/memory/') throw new Error(`listen on /memory/<name>, not ${ma}`);
    this.#transport.net.listen(addr, this);
    this.#addr = addr;
    this.#dialAddr = undefined;
    queueMicrotask(() => this.safeDispatchEvent('listening'));
  }

  accept(conn: SimConnection): void {
    this.#upgrader.upgradeInbound(conn, { signal: this.#shutdown.signal }).catch((err: Error) => {
      conn.abort(err);
    });
  }

  getAddrs(): Multiaddr[] {
    return this.#addr === undefined ? [] : [multiaddr(this.#addr)];
  }

  updateAnnounceAddrs(): void {}

  async close(): Promise<void> {
    if (this.#addr !== undefined) this.#transport.net.unlisten(this.#addr, this);
    this.#shutdown.abort();
    queueMicrotask(() => this.safeDispatchEvent('close'));
  }
}

/** `/memory/<name>` of a `/memory/<name>[/p2p/…]` address ('' for any other). */
export function memoryAddr(ma: Multiaddr): string {
  const c = ma.getComponents()[0];
  return c?.code === CODE_MEMORY ? `/memory/${c.value ?? ''}` : '';
}

let connectionIds = 0;

export class SimTransport implements Transport {
  readonly [Symbol.toStringTag] = '@cidx/sim-network';
  readonly [transportSymbol] = true as const;
  readonly [serviceCapabilities] = ['@libp2p/transport'];
  readonly net: NetworkModel;
  readonly member: Member;
  readonly peerId: string;
  readonly #log: Logger;

  constructor(net: NetworkModel, member: Member, c: SimTransportComponents) {
    this.net = net;
    this.member = member;
    this.peerId = c.peerId.toString();
    this.#log = c.logger.forComponent('cidx:sim-network');
    net.bindPeer(member, this.peerId);
  }

  /**
   * Opening a connection costs one round trip before the upgrade: the first packet reaches the
   * listener after the one-way delay (the inbound end is handed to it then), the answer comes
   * back after the other. A listener cut off by a partition never answers: the dial runs until
   * its signal aborts, as a dropped SYN would.
   */
  async dial(ma: Multiaddr, options: DialTransportOptions): Promise<Connection> {
    options.signal.throwIfAborted();
    const addr = memoryAddr(ma);
    const listener = this.net.endpoint(addr);
    if (listener === undefined)
      throw new ConnectionFailedError(`No memory listener found at ${ma}`);
    const from = this.member;
    const to = listener.member;
    const there = this.net.oneWayMs(from, to);
    const back = this.net.oneWayMs(to, from);
    await this.net.sleep(there, options.signal);
    if (!this.net.reachable(from, to)) await this.net.dropDial(options.signal);
    if (this.net.endpoint(addr) !== listener) {
      // The node stopped meanwhile: its host answers with a reset.
      await this.net.sleep(back, options.signal);
      throw new ConnectionFailedError(`connection refused by ${ma}`);
    }
    const id = connectionIds++;
    const dialer = new SimConnection(this.net, from, there, {
      remoteAddr: listener.dialAddr,
      direction: 'outbound',
      log: this.#log.newScope(`connection:${id}`),
    });
    const inbound = new SimConnection(this.net, to, back, {
      remoteAddr: multiaddr(`${addr}-outgoing/p2p/${this.peerId}`),
      direction: 'inbound',
      log: this.#log.newScope(`connection:${id}`),
    });
    dialer.peer = inbound;
    inbound.peer = dialer;
    this.net.opened(dialer, there + back);
    // Forgotten once both ends closed: a partition must still close an end left open.
    let open = 2;
    const forget = () => {
      if (--open === 0) this.net.closed(dialer);
    };
    dialer.addEventListener('close', forget, { once: true });
    inbound.addEventListener('close', forget, { once: true });
    listener.accept(inbound);
    try {
      await this.net.sleep(back, options.signal);
      options.signal.throwIfAborted();
      return await options.upgrader.upgradeOutbound(dialer, options);
    } catch (err) {
      dialer.abort(err as Error);
      throw err;
    }
  }

  createListener(options: CreateListenerOptions): Listener {
    return new SimListener(this, options.upgrader);
  }

  listenFilter(multiaddrs: Multiaddr[]): Multiaddr[] {
    return multiaddrs.filter(isMemoryAddr);
  }

  dialFilter(multiaddrs: Multiaddr[]): Multiaddr[] {
    return multiaddrs.filter(isMemoryAddr);
  }
}

/** `/memory/<name>`, optionally followed by `/p2p/<id>`. */
function isMemoryAddr(ma: Multiaddr): boolean {
  const cs = ma.getComponents();
  return (
    cs[0]?.code === CODE_MEMORY &&
    (cs.length === 1 || (cs.length === 2 && cs[1]?.code === CODE_P2P))
  );
}
