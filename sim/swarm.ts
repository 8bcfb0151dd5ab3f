/**
 * The simulated swarm: real CidxNode instances over the memory transport (plaintext inside the
 * process), started and stopped by the scenario. Nothing is mocked: the code under test is the
 * code a `cidx node` process runs.
 */
import type { KadDHTInit } from '@libp2p/kad-dht';
import pLimit from 'p-limit';
import type { SwarmParams } from '../src/index/swarm.ts';
import type { LookupStats } from '../src/net/closest.ts';
import { WireMeter } from '../src/net/wire-meter.ts';
import type { Limits, Timing } from '../src/node/config.ts';
import { CidxNode } from '../src/node/node.ts';
import type { Rng } from './random.ts';
import type { Selector } from './scenario.ts';

export interface Slot {
  /** Position in join order: the node's name in selectors and reports. */
  index: number;
  node: CidxNode;
  alive: boolean;
  joinedAt: number;
  goneAt?: number;
}

export interface SwarmConfig {
  runId: string;
  swarm: Partial<SwarmParams>;
  timing: Partial<Timing>;
  limits: Partial<Limits>;
  /** Peers each joining node bootstraps to (default 3). */
  bootstrapPeers?: number;
  /** kad-dht settings other than the node's defaults (both DHTs). */
  dht?: Partial<KadDHTInit>;
}

export class SimSwarm {
  readonly slots: Slot[] = [];
  readonly meter = new WireMeter();
  readonly lookups = { count: 0, messages: 0, hops: 0, ms: 0 };
  readonly searches = { count: 0, requests: 0, peers: 0, repeatQueries: 0 };
  notifications = 0;
  readonly #config: SwarmConfig;
  readonly #rng: Rng;
  readonly #start = Date.now();
  #nextIndex = 0;
  /** Live node count over time, for the report. */
  readonly aliveSeries: { t: number; alive: number }[] = [];

  constructor(config: SwarmConfig, rng: Rng) {
    this.#config = config;
    this.#rng = rng;
  }

  alive(): Slot[] {
    return this.slots.filter((s) => s.alive);
  }

  /** Starts `count` nodes, one every `everyMs` (several joining at once when they take longer). */
  async join(count: number, everyMs: number, progress?: () => void): Promise<Slot[]> {
    const limit = pLimit(everyMs > 0 ? 64 : 8);
    const started: Promise<Slot>[] = [];
    for (let i = 0; i < count; i++) {
      if (i > 0 && everyMs > 0) await sleep(everyMs);
      started.push(
        limit(async () => {
          const slot = await this.#startOne();
          progress?.();
          return slot;
        }),
      );
    }
    return Promise.all(started);
  }

  async #startOne(): Promise<Slot> {
    const index = this.#nextIndex++; // taken before any await: joins run concurrently
    const live = this.alive();
    const boot = this.#rng
      .sample(live, this.#config.bootstrapPeers ?? 3)
      .map((s) => s.node.addrs[0] as string);
    const node = await CidxNode.create({
      transport: 'memory',
      encryption: 'plaintext',
      listen: [`/memory/sim-${this.#config.runId}-${index}`],
      bootstrap: boot,
      swarm: this.#config.swarm,
      timing: this.#config.timing,
      // 1 MiB duplicate filters on thousands of nodes would be most of the memory of a run.
      limits: { inboxCapacity: 1000, inboxFilterCells: 1 << 14, ...this.#config.limits },
      simulation: true,
      ...(this.#config.dht === undefined ? {} : { dht: this.#config.dht }),
      metrics: this.meter.component,
      onLookup: (_dht, s: LookupStats) => {
        this.lookups.count++;
        this.lookups.messages += s.messages;
        this.lookups.hops += s.hops;
        this.lookups.ms += s.ms;
      },
      onSearch: (s) => {
        this.searches.count++;
        this.searches.requests += s.requests;
        this.searches.peers += s.peers;
        this.searches.repeatQueries += s.repeatQueries;
      },
    });
    const slot: Slot = { index, node, alive: false, joinedAt: Date.now() - this.#start };
    this.slots.push(slot);
    this.slots.sort((a, b) => a.index - b.index);
    node.on('notification', () => {
      this.notifications++;
    });
    await node.start();
    slot.alive = true;
    this.#record();
    return slot;
  }

  /** Crashes nodes: connections reset without goodbye, then the node is gone. */
  async kill(slots: Slot[]): Promise<void> {
    await Promise.all(
      slots.map(async (s) => {
        s.alive = false;
        s.goneAt = Date.now() - this.#start;
        for (const c of s.node.libp2p.getConnections()) c.abort(new Error('crashed'));
        await s.node.stop().catch(() => {});
      }),
    );
    this.#record();
  }

  /** Stops nodes gracefully (connections closed properly); what they own stays in the index. */
  async leave(slots: Slot[]): Promise<void> {
    await Promise.all(
      slots.map(async (s) => {
        s.alive = false;
        s.goneAt = Date.now() - this.#start;
        await s.node.stop().catch(() => {});
      }),
    );
    this.#record();
  }

  /** The live nodes a selector names (node indexes refer to join order). */
  select(sel: Selector): Slot[] {
    const live = this.alive();
    if (sel.kind === 'all') return live;
    if (sel.kind === 'random') return this.#rng.sample(live, sel.count);
    return live.filter((s) => s.index >= sel.from && s.index <= sel.to);
  }

  async stopAll(): Promise<void> {
    await Promise.allSettled(this.slots.filter((s) => s.alive).map((s) => s.node.stop()));
    for (const s of this.slots) s.alive = false;
  }

  #record(): void {
    this.aliveSeries.push({ t: Date.now() - this.#start, alive: this.alive().length });
  }
}

export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
