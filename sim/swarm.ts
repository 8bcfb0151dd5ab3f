import { type StreamTraffic, WireMeter } from '../src/net/wire-meter.ts';
import { CidxNode } from '../src/node/node.ts';
import type { Profile } from '../src/profile/profile.ts';
import { bootstrapOf, inProcessStarts, startInTurn } from './join-order.ts';
import type { NetworkStats } from './network/member.ts';
import { SimNetwork } from './network/network.ts';
import { simNodeAddr } from './node-addr.ts';
import { emptyCounters, simNodeOptions } from './node-options.ts';
import type { Rng } from './random.ts';
import type {
  NetworkSpec,
  PeerInfo,
  SimPeer,
  SimSwarm,
  SwarmConfig,
  SwarmCounters,
  SwarmFactory,
  SwarmNetwork,
} from './swarm-api.ts';

/** A node's name on the network: its slot, so its region and links repeat for a seed. */
const nameOf = (index: number) => `n${index}`;

class InProcessPeer implements SimPeer {
  readonly index: number;
  readonly node: CidxNode;
  alive = false;
  /** Its network is frozen: it can be asked nothing until it thaws. */
  frozen = false;

  constructor(index: number, node: CidxNode) {
    this.index = index;
    this.node = node;
  }

  create(profile: Profile): Promise<{ id: string }> {
    return this.node.create(profile);
  }

  search(profile: Profile, k: number): Promise<{ id: string; similarity: number }[]> {
    return this.node.search(profile, { k });
  }

  async update(id: string, profile: Profile): Promise<void> {
    await this.node.update(id, profile);
  }

  async dissolve(id: string): Promise<void> {
    await this.node.dissolve(id);
  }

  async republish(): Promise<void> {
    await this.node.republish();
  }

  async info(): Promise<PeerInfo> {
    const i = this.node.info();
    return {
      descriptors: i.stored.descriptors,
      keys: i.stored.keys,
      bytes: i.stored.bytes,
      owned: i.owned,
    };
  }
}

export class InProcessSwarm implements SimSwarm {
  readonly #peers: InProcessPeer[] = [];
  /** Every node's wire traffic, connections and libp2p counter groups (benches read it). */
  readonly meter = new WireMeter();
  readonly #counters: SwarmCounters = emptyCounters();
  readonly #config: SwarmConfig;
  readonly #rng: Rng;
  readonly #start = Date.now();
  readonly #aliveSeries: { t: number; alive: number }[] = [];
  readonly #net: SimNetwork;
  readonly network: SwarmNetwork;
  #nextIndex = 0;

  constructor(config: SwarmConfig, rng: Rng) {
    this.#config = config;
    this.#rng = rng;
    const spec: NetworkSpec = config.network ?? {};
    const { seed = 0, regions, ...rest } = config.network ?? {};
    this.#net = new SimNetwork({ seed, ...rest, ...(regions ? { regions: regions.table } : {}) });
    const net = this.#net;
    this.network = {
      spec,
      stats: (): NetworkStats => net.stats(),
      regionOf: (p: SimPeer) => net.regionOf(nameOf(p.index)),
      rttMs: (a: SimPeer, b: SimPeer) => net.rttMs(nameOf(a.index), nameOf(b.index)),
    };
  }

  get peers(): readonly SimPeer[] {
    return this.#peers;
  }

  alive(): InProcessPeer[] {
    return this.#peers.filter((s) => s.alive);
  }

  async join(count: number, everyMs: number, onJoined?: () => void): Promise<SimPeer[]> {
    return startInTurn(
      {
        count,
        everyMs,
        concurrency: inProcessStarts(everyMs),
        empty: this.alive().length === 0,
      },
      () => this.#startOne(),
      onJoined,
    );
  }

  async #startOne(): Promise<InProcessPeer> {
    const index = this.#nextIndex++; // taken before any await: joins run concurrently
    const boot = bootstrapOf(
      this.#config,
      this.#rng,
      this.alive(),
      (s) => s.node.addrs[0] as string,
    );
    const c = this.#counters;
    const on = this.#net.join(nameOf(index));
    const node = await CidxNode.create({
      transport: 'memory',
      transportFactory: on.transport,
      connectionGater: on.gater,
      encryption: 'plaintext',
      listen: [simNodeAddr(index)],
      bootstrap: boot,
      ...simNodeOptions(this.#config, this.meter, c),
    });
    const peer = new InProcessPeer(index, node);
    this.#peers.push(peer);
    this.#peers.sort((a, b) => a.index - b.index);
    node.on('notification', () => {
      c.notifications++;
    });
    await node.start();
    peer.alive = true;
    this.#record();
    return peer;
  }

  async kill(peers: SimPeer[]): Promise<void> {
    await Promise.all(
      this.#own(peers).map(async (s) => {
        s.alive = false;
        for (const c of s.node.libp2p.getConnections()) c.abort(new Error('crashed'));
        await s.node.stop().catch(() => {});
      }),
    );
    this.#record();
  }

  /** What they own stays in the index until it expires. */
  async leave(peers: SimPeer[]): Promise<void> {
    await Promise.all(
      this.#own(peers).map(async (s) => {
        s.alive = false;
        await s.node.stop().catch(() => {});
      }),
    );
    this.#record();
  }

  async stop(): Promise<void> {
    await Promise.allSettled(this.alive().map((s) => s.node.stop()));
    for (const s of this.#peers) s.alive = false;
    this.#net.close();
  }

  /** The side's nodes and all others cannot reach each other: connections across close. */
  async partition(side: SimPeer[]): Promise<void> {
    this.#net.partition(this.#own(side).map((p) => nameOf(p.index)));
  }

  async heal(): Promise<void> {
    this.#net.heal();
  }

  /** Nothing the nodes send or are sent moves until they thaw; connections stay open. */
  async freeze(peers: SimPeer[]): Promise<void> {
    const own = this.#own(peers);
    this.#net.freeze(own.map((p) => nameOf(p.index)));
    for (const p of own) p.frozen = true;
  }

  async thaw(peers: SimPeer[]): Promise<void> {
    const own = this.#own(peers);
    this.#net.thaw(own.map((p) => nameOf(p.index)));
    for (const p of own) p.frozen = false;
  }

  async traffic(): Promise<Record<string, StreamTraffic>> {
    return this.meter.snapshot();
  }

  async counters(): Promise<SwarmCounters> {
    return structuredClone(this.#counters);
  }

  aliveSeries(): { t: number; alive: number }[] {
    return this.#aliveSeries;
  }

  #own(peers: SimPeer[]): InProcessPeer[] {
    return peers.map((p) => {
      if (!(p instanceof InProcessPeer) || !this.#peers.includes(p))
        throw new Error(`node ${p.index} is not of this swarm`);
      return p;
    });
  }

  #record(): void {
    this.#aliveSeries.push({ t: Date.now() - this.#start, alive: this.alive().length });
  }
}

export const inProcessSwarm: SwarmFactory = (config, rng) => new InProcessSwarm(config, rng);
