/**
 * The network model: members, links, uplinks, partitions and the deliveries in flight. Every
 * byte any protocol sends (both DHTs, cidx, identify, ping, the handshakes) passes through it,
 * on the connections of the transport in transport.ts; network.ts puts the two together.
 *
 * What it models: a one-way delay per ordered link (a → b), fixed for the run — base delay
 * (`latencyMs`, or half the round trip between the two nodes' regions) plus each end's access
 * delay, ± a jitter drawn once per link so a connection keeps its order; propagation is
 * pipelined (a chunk arrives at its departure + the delay, not behind earlier chunks' delays);
 * each node's uplink is a queue of `bandwidthBps` (departure = max(now, uplink free) + bytes /
 * rate); opening a connection costs one round trip; partitions. What it does not: loss,
 * congestion control beyond the uplink queue, downlink limits, a kernel's buffers.
 */
import type { Multiaddr } from '@multiformats/multiaddr';
import { percentile } from '../metrics.ts';
import { Rng } from '../random.ts';
import {
  Member,
  type MemberOptions,
  type NetworkConfig,
  NetworkConfigError,
  type NetworkStats,
  nonNegative,
} from './member.ts';
import type { RegionTable } from './regions.ts';
import { type Timed, TimerQueue } from './timer-queue.ts';
import type { PeerEnd, SimConnection } from './transport.ts';
import { transmitMs } from './units.ts';

const DATA = 0;
const CLOSE = 1;
const RESET = 2;
type Kind = typeof DATA | typeof CLOSE | typeof RESET;
type Chunk = Parameters<SimConnection['sendData']>[0];

/** One chunk (or a close or reset) on its way from one end of a connection to the other. */
class Delivery implements Timed {
  due = 0;
  seq = 0;
  readonly net: NetworkModel;
  readonly from: SimConnection;
  readonly kind: Kind;
  readonly data: Chunk | undefined;

  constructor(net: NetworkModel, from: SimConnection, kind: Kind, data: Chunk | undefined) {
    this.net = net;
    this.from = from;
    this.kind = kind;
    this.data = data;
  }

  run(): void {
    this.net.deliver(this.from, this.kind, this.data, this);
  }
}

/** A listening address's owner, as the transport registers it. */
export interface Endpoint {
  readonly member: Member;
  /** The listening node's peer id (for the dialer's remote address). */
  readonly peerId: string;
  /**
   * `/memory/<name>/p2p/<peer id>`, as a dialler's end names the listener: one object for every
   * connection to it (a multiaddr is immutable), not one per connection.
   */
  readonly dialAddr: Multiaddr;
  accept(conn: SimConnection): void;
}

export class NetworkModel {
  readonly queue: TimerQueue;
  readonly #seed: number;
  readonly #latencyMs: number;
  readonly #jitterMs: number;
  readonly #accessMs: number;
  readonly #bandwidthBps: number;
  readonly #regions: RegionTable | undefined;
  readonly #members = new Map<string, Member>();
  readonly #byPeer = new Map<string, Member>();
  readonly #endpoints = new Map<string, Endpoint>();
  /** Open connections, by their dialing end (its `peer` is the listening end). */
  readonly #open = new Set<SimConnection>();
  #immediate: Delivery[] = [];
  /** What frozen nodes sent or were sent, in order, until they thaw. */
  #held: Delivery[] = [];
  #sides = 0;
  #rtts: number[] = [];
  #bytes = 0;
  #chunks = 0;
  #droppedChunks = 0;
  #droppedBytes = 0;
  #closedByPartition = 0;
  #dialsDropped = 0;

  constructor(c: NetworkConfig) {
    if (!Number.isInteger(c.seed)) throw new NetworkConfigError('seed must be an integer');
    if (c.regions !== undefined && c.latencyMs !== undefined) {
      throw new NetworkConfigError('latency and regions both set the base delay: give one');
    }
    this.#seed = c.seed;
    this.#latencyMs = nonNegative('latency', c.latencyMs);
    this.#jitterMs = nonNegative('jitter', c.jitterMs);
    this.#accessMs = nonNegative('access', c.accessMs);
    if (c.bandwidthBps !== undefined && !(c.bandwidthBps > 0)) {
      throw new NetworkConfigError(`bandwidth must be more than 0, not ${c.bandwidthBps}`);
    }
    this.#bandwidthBps = c.bandwidthBps ?? Number.POSITIVE_INFINITY;
    this.#regions = c.regions;
    this.queue = new TimerQueue(c.now);
  }

  get regions(): RegionTable | undefined {
    return this.#regions;
  }

  /**
   * Adds a node (or brings back a stopped one under its name, region kept). A node that joins
   * during a partition joins the side most live nodes are on.
   */
  add(name: string, o: MemberOptions = {}): Member {
    const old = this.#members.get(name);
    if (old !== undefined) {
      if (old.alive)
        throw new NetworkConfigError(`a node named "${name}" is already on the network`);
      old.alive = true;
      old.side = this.#majoritySide();
      return old;
    }
    const regions = this.#regions;
    let region = -1;
    if (o.region !== undefined) {
      if (regions === undefined) throw new NetworkConfigError('a region needs a region table');
      region = regions.indexOf(o.region);
    } else if (regions !== undefined) {
      region = regions.pick(this.#seed, name);
    }
    const m = new Member(
      name,
      region,
      o.accessMs === undefined ? this.#accessMs : nonNegative('access', o.accessMs),
      o.bandwidthBps ?? this.#bandwidthBps,
    );
    m.side = this.#majoritySide();
    this.#members.set(name, m);
    return m;
  }

  member(name: string): Member | undefined {
    return this.#members.get(name);
  }

  /** Ties a libp2p peer id to a member, so the connection gater can tell where a peer is. */
  bindPeer(m: Member, peerId: string): void {
    this.#byPeer.set(peerId, m);
  }

  memberOfPeer(peerId: string): Member | undefined {
    return this.#byPeer.get(peerId);
  }

  /** Registers a listening address (`/memory/<name>`); its member counts as alive. */
  listen(addr: string, e: Endpoint): void {
    if (this.#endpoints.has(addr)) throw new Error(`address ${addr} already in use`);
    this.#endpoints.set(addr, e);
    e.member.alive = true;
  }

  /** The node stopped listening at `addr`: it has left (its member no longer counts). */
  unlisten(addr: string, e: Endpoint): void {
    if (this.#endpoints.get(addr) !== e) return;
    this.#endpoints.delete(addr);
    e.member.alive = false;
  }

  endpoint(addr: string): Endpoint | undefined {
    return this.#endpoints.get(addr);
  }

  /** One-way delay from `a` to `b` in ms: fixed per ordered link. */
  oneWayMs(a: Member, b: Member): number {
    const base =
      this.#regions !== undefined && a.region >= 0 && b.region >= 0
        ? this.#regions.rttMs(a.region, b.region) / 2
        : this.#latencyMs;
    let d = base + a.accessMs + b.accessMs;
    if (this.#jitterMs > 0) {
      // Drawn from the seed and the link's names alone: the same link gets the same delay
      // whatever order connections open in.
      const u = new Rng(this.#seed, `network/jitter/${a.name}>${b.name}`).next();
      d += (2 * u - 1) * this.#jitterMs;
    }
    return Math.max(0, d);
  }

  rttMs(a: Member, b: Member): number {
    return this.oneWayMs(a, b) + this.oneWayMs(b, a);
  }

  /** True while no partition separates `a` and `b`. */
  reachable(a: Member, b: Member): boolean {
    return a.side === b.side;
  }

  /**
   * Cuts the named nodes off from all others: new connections across the cut are refused,
   * open ones closed, bytes in flight across it dropped. Returns the new side's number.
   */
  partition(names: Iterable<string>): number {
    const chosen = this.#named(names, 'partition');
    const side = ++this.#sides;
    for (const m of chosen) m.side = side;
    for (const conn of [...this.#open]) {
      const peer = conn.peer as PeerEnd;
      if (this.reachable(conn.local, peer.local)) continue;
      this.#closedByPartition++;
      const err = new Error('partitioned');
      conn.abort(err);
      peer.abort(err);
    }
    return side;
  }

  /** Ends every partition: everyone can reach everyone again. */
  heal(): void {
    for (const m of this.#members.values()) m.side = 0;
    this.#sides = 0;
  }

  /**
   * Freezes the named nodes, as a stopped process is frozen: their connections stay open, a
   * dial to them completes its first round trip (the kernel accepts it), but nothing they send
   * or are sent moves until `thaw` — then it arrives, in order.
   */
  freeze(names: Iterable<string>): void {
    for (const m of this.#named(names, 'freeze')) m.frozen = true;
  }

  thaw(names: Iterable<string>): void {
    for (const m of this.#named(names, 'thaw')) m.frozen = false;
    const held = this.#held;
    this.#held = [];
    for (const d of held) d.run();
  }

  #named(names: Iterable<string>, what: string): Member[] {
    const out: Member[] = [];
    for (const name of names) {
      const m = this.#members.get(name);
      if (m === undefined) throw new NetworkConfigError(`no node named "${name}" to ${what}`);
      out.push(m);
    }
    return out;
  }

  /** The side with the most live members (the lowest-numbered of equals). */
  #majoritySide(): number {
    if (this.#sides === 0) return 0;
    const count = new Map<number, number>();
    for (const m of this.#members.values())
      if (m.alive) count.set(m.side, (count.get(m.side) ?? 0) + 1);
    let best = 0;
    let most = -1;
    for (const [side, n] of [...count.entries()].sort((x, y) => x[0] - y[0])) {
      if (n > most) [best, most] = [side, n];
    }
    return best;
  }

  /** Resolves after `ms` of network time (at once for 0); rejects when `signal` aborts. */
  sleep(ms: number, signal: AbortSignal): Promise<void> {
    signal.throwIfAborted();
    if (ms <= 0) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const onAbort = () => reject(signal.reason);
      signal.addEventListener('abort', onAbort, { once: true });
      this.queue.at(this.queue.now() + ms, {
        due: 0,
        seq: 0,
        run: () => {
          signal.removeEventListener('abort', onAbort);
          resolve();
        },
      });
    });
  }

  /** Waits until `signal` aborts: a dial whose packets are dropped never gets an answer. */
  dropDial(signal: AbortSignal): Promise<never> {
    this.#dialsDropped++;
    return new Promise((_, reject) => {
      if (signal.aborted) reject(signal.reason);
      signal.addEventListener('abort', () => reject(signal.reason), { once: true });
    });
  }

  /** A connection pair was created (`conn` dials); the link's round trip enters the stats. */
  opened(conn: SimConnection, rttMs: number): void {
    this.#open.add(conn);
    this.#rtts.push(rttMs);
  }

  closed(conn: SimConnection): void {
    this.#open.delete(conn);
  }

  /** Sends a chunk, a close or a reset from `conn` to its other end. */
  send(conn: SimConnection, kind: Kind, data?: Chunk): void {
    const bytes = data?.byteLength ?? 0;
    this.#bytes += bytes;
    if (kind === DATA) this.#chunks++;
    const d = new Delivery(this, conn, kind, data);
    if (conn.instant) {
      // No delay and no uplink limit: delivered in a microtask, as the memory transport does,
      // without reading the clock or touching the timer queue.
      if (this.#immediate.length === 0) queueMicrotask(this.#flush);
      this.#immediate.push(d);
      return;
    }
    const now = this.queue.now();
    const from = conn.local;
    let departure = now;
    if (from.uplinkBps !== Number.POSITIVE_INFINITY) {
      departure = Math.max(now, from.uplinkFreeAt) + transmitMs(bytes, from.uplinkBps);
      from.uplinkFreeAt = departure;
    }
    // Never before an earlier chunk of the same connection: its order is kept.
    const due = Math.max(departure + conn.delayMs, conn.lastDue);
    conn.lastDue = due;
    this.queue.at(due, d);
  }

  readonly #flush = (): void => {
    const batch = this.#immediate;
    this.#immediate = [];
    for (const d of batch) this.deliver(d.from, d.kind, d.data, d);
  };

  /**
   * Hands what `from` sent to the other end, unless a partition now lies between them; held
   * while either end is frozen.
   */
  deliver(from: SimConnection, kind: Kind, data: Chunk | undefined, d?: Delivery): void {
    const to = from.peer;
    if (to === undefined) return;
    if (from.local.frozen || to.local.frozen) {
      this.#held.push(d ?? new Delivery(this, from, kind, data));
      return;
    }
    if (!this.reachable(from.local, to.local)) {
      if (kind === DATA) {
        this.#droppedChunks++;
        this.#droppedBytes += data?.byteLength ?? 0;
      }
      return;
    }
    to.receive(kind, data);
  }

  /** The round trip of every connection opened so far (ms), in the order they opened. */
  rtts(): readonly number[] {
    return this.#rtts;
  }

  stats(): NetworkStats {
    return {
      members: this.#members.size,
      connections: this.#rtts.length,
      rttP50Ms: percentile(this.#rtts, 50),
      rttP95Ms: percentile(this.#rtts, 95),
      bytes: this.#bytes,
      chunks: this.#chunks,
      droppedChunks: this.#droppedChunks,
      droppedBytes: this.#droppedBytes,
      closedByPartition: this.#closedByPartition,
      dialsDropped: this.#dialsDropped,
      inFlight: this.queue.size,
      held: this.#held.length,
    };
  }

  /** Drops whatever is in flight and stops the timer (end of the simulation). */
  close(): void {
    this.queue.clear();
    this.#immediate = [];
    this.#held = [];
  }
}

export { CLOSE, DATA, type Kind, RESET };
