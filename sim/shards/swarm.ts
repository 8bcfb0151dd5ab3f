/**
 * A simulated swarm spread over worker threads (`cidx sim --workers <n>`): node i runs in shard
 * i mod n; nodes of one shard connect in memory, nodes of different shards over a MessagePort
 * per connection (thread-transport.ts). One event loop and one heap per shard instead of one
 * for the whole swarm: the other cores run nodes, and each shard's garbage collector walks a
 * smaller heap. The network model's delays and bandwidth apply to every connection (each
 * thread models what its nodes send); partitions and freezes, which would have to change every
 * thread's model at once, are not offered.
 */
import { availableParallelism } from 'node:os';
import { getHeapStatistics } from 'node:v8';
import { MessageChannel, Worker } from 'node:worker_threads';
import type { StreamTraffic } from '../../src/net/wire-meter.ts';
import type { Profile } from '../../src/profile/profile.ts';
import { bootstrapOf, inProcessStarts, startInTurn } from '../join-order.ts';
import { percentile, sumTraffic } from '../metrics.ts';
import type { NetworkStats } from '../network/member.ts';
import { addCounters, emptyCounters } from '../node-options.ts';
import type { Rng } from '../random.ts';
import type {
  PeerInfo,
  SimPeer,
  SimSwarm,
  SwarmConfig,
  SwarmCounters,
  SwarmFactory,
  SwarmNetwork,
} from '../swarm-api.ts';
import type {
  ShardAnswers,
  ShardInit,
  ShardMessage,
  ShardMeter,
  ShardReply,
  ShardRequest,
} from './messages.ts';

/** Most shards a run may ask for. */
export const MAX_WORKERS = 64;

/** A shard's worker thread and the requests it has not answered yet. */
class Shard {
  readonly #worker: Worker;
  readonly #pending = new Map<
    number,
    { resolve: (v: unknown) => void; reject: (e: Error) => void }
  >();
  #next = 0;
  #failed: Error | undefined;

  constructor(init: ShardInit) {
    // The worker runs from source (.ts, Node's type stripping) or from the build (.js).
    const ext = import.meta.url.endsWith('.ts') ? 'ts' : 'js';
    this.#worker = new Worker(new URL(`./worker.${ext}`, import.meta.url), {
      workerData: init,
      transferList: init.links.map((l) => l.port),
      // Each shard gets the heap limit the main thread has (Node's flag is per isolate).
      resourceLimits: {
        maxOldGenerationSizeMb: Math.floor(getHeapStatistics().heap_size_limit / 2 ** 20),
      },
    });
    this.#worker.on('message', (r: ShardReply) => {
      const p = this.#pending.get(r.id);
      if (p === undefined) return;
      this.#pending.delete(r.id);
      if (r.ok) p.resolve(r.value);
      else p.reject(Object.assign(new Error(r.error.message), { name: r.error.name }));
    });
    const fail = (err: Error) => {
      this.#failed ??= err;
      for (const p of this.#pending.values()) p.reject(err);
      this.#pending.clear();
    };
    this.#worker.on('error', (err) =>
      fail(new Error(`shard ${init.shard} failed: ${err.message}`)),
    );
    this.#worker.on('exit', (code) => fail(new Error(`shard ${init.shard} exited (${code})`)));
  }

  ask<R extends ShardRequest>(request: R): Promise<ShardAnswers[R['op']]> {
    if (this.#failed !== undefined) return Promise.reject(this.#failed);
    const id = this.#next++;
    return new Promise((resolve, reject) => {
      this.#pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
      this.#worker.postMessage({ ...request, id } as ShardMessage);
    });
  }

  async terminate(): Promise<void> {
    await this.#worker.terminate();
  }
}

class ShardPeer implements SimPeer {
  readonly index: number;
  readonly addrs: string[];
  readonly shard: Shard;
  alive = true;

  constructor(index: number, shard: Shard, addrs: string[]) {
    this.index = index;
    this.shard = shard;
    this.addrs = addrs;
  }

  create(profile: Profile): Promise<{ id: string }> {
    return this.shard.ask({ op: 'create', index: this.index, profile: profile.toJSON() });
  }

  search(profile: Profile, k: number): Promise<{ id: string; similarity: number }[]> {
    return this.shard.ask({ op: 'search', index: this.index, profile: profile.toJSON(), k });
  }

  async update(id: string, profile: Profile): Promise<void> {
    await this.shard.ask({ op: 'update', index: this.index, id, profile: profile.toJSON() });
  }

  async dissolve(id: string): Promise<void> {
    await this.shard.ask({ op: 'dissolve', index: this.index, id });
  }

  async republish(): Promise<void> {
    await this.shard.ask({ op: 'republish', index: this.index });
  }

  info(): Promise<PeerInfo> {
    return this.shard.ask({ op: 'info', index: this.index });
  }
}

export class ShardedSwarm implements SimSwarm {
  readonly #shards: Shard[];
  readonly #peers: ShardPeer[] = [];
  readonly #config: SwarmConfig;
  readonly #rng: Rng;
  readonly #start = Date.now();
  readonly #aliveSeries: { t: number; alive: number }[] = [];
  #nextIndex = 0;
  /** The network model's statistics summed over the threads, as of the last meter reading. */
  #networkStats: NetworkStats = mergeNetworkStats([], 0);
  readonly network: SwarmNetwork;

  constructor(config: SwarmConfig, rng: Rng, workers: number) {
    if (!Number.isInteger(workers) || workers < 1 || workers > MAX_WORKERS)
      throw new RangeError(`workers must be an integer from 1 to ${MAX_WORKERS}`);
    this.#config = config;
    this.#rng = rng;
    // A link between every two shards: connections between their nodes are opened over it.
    const links: ShardInit['links'][] = Array.from({ length: workers }, () => []);
    for (let a = 0; a < workers; a++)
      for (let b = a + 1; b < workers; b++) {
        const { port1, port2 } = new MessageChannel();
        links[a]?.push({ shard: b, port: port1 });
        links[b]?.push({ shard: a, port: port2 });
      }
    const { network: spec, ...rest } = config;
    const { seed = 0, regions, ...model } = spec ?? {};
    const network = { seed, ...model, ...(regions ? { regions: regions.table.data() } : {}) };
    this.#shards = Array.from(
      { length: workers },
      (_, shard) =>
        new Shard({ config: rest, network, shard, shards: workers, links: links[shard] ?? [] }),
    );
    this.network = {
      spec: spec ?? {},
      stats: () => this.#networkStats,
      regionOf: (p: SimPeer) => {
        const table = regions?.table;
        return table?.regions[table.pick(seed, `n${p.index}`)]?.id;
      },
    };
  }

  get peers(): readonly SimPeer[] {
    return this.#peers;
  }

  alive(): ShardPeer[] {
    return this.#peers.filter((p) => p.alive);
  }

  join(count: number, everyMs: number, onJoined?: () => void): Promise<SimPeer[]> {
    return startInTurn(
      {
        count,
        everyMs,
        // As many starting at once as the in-process swarm lets, in every shard.
        concurrency: inProcessStarts(everyMs) * this.#shards.length,
        empty: this.alive().length === 0,
      },
      () => this.#startOne(),
      onJoined,
    );
  }

  async #startOne(): Promise<ShardPeer> {
    const index = this.#nextIndex++; // taken before any await: joins run concurrently
    const bootstrap = bootstrapOf(
      this.#config,
      this.#rng,
      this.alive(),
      (p) => p.addrs[0] as string,
    );
    const shard = this.#shards[index % this.#shards.length] as Shard;
    const { addrs } = await shard.ask({ op: 'start', index, bootstrap });
    const peer = new ShardPeer(index, shard, addrs);
    this.#peers.push(peer);
    this.#peers.sort((a, b) => a.index - b.index);
    this.#record();
    return peer;
  }

  kill(peers: SimPeer[]): Promise<void> {
    return this.#halt(peers, 'kill');
  }

  /** What they own stays in the index until it expires. */
  leave(peers: SimPeer[]): Promise<void> {
    return this.#halt(peers, 'leave');
  }

  async stop(): Promise<void> {
    await Promise.allSettled(this.#shards.map((s) => s.ask({ op: 'stop' })));
    for (const p of this.#peers) p.alive = false;
    await Promise.allSettled(this.#shards.map((s) => s.terminate()));
  }

  async traffic(): Promise<Record<string, StreamTraffic>> {
    return sumTraffic((await this.meters()).map((m) => m.traffic));
  }

  async counters(): Promise<SwarmCounters> {
    const out = emptyCounters();
    for (const m of await this.meters()) addCounters(out, m.counters);
    return out;
  }

  /** Every shard's meter (benches read connections from it too). */
  async meters(): Promise<ShardMeter[]> {
    const all = await Promise.all(this.#shards.map((s) => s.ask({ op: 'meter' })));
    this.#networkStats = mergeNetworkStats(
      all.map((m) => m.network),
      this.#peers.length,
    );
    return all;
  }

  /** Each shard's heap in use (bytes), after a full collection where it may run one. */
  heapsUsed(): Promise<number[]> {
    return Promise.all(this.#shards.map((s) => s.ask({ op: 'heap' })));
  }

  aliveSeries(): { t: number; alive: number }[] {
    return this.#aliveSeries;
  }

  async #halt(peers: SimPeer[], op: 'kill' | 'leave'): Promise<void> {
    const own = peers.map((p) => {
      if (!(p instanceof ShardPeer) || !this.#peers.includes(p))
        throw new Error(`node ${p.index} is not of this swarm`);
      return p;
    });
    for (const p of own) p.alive = false;
    await Promise.all(
      this.#shards.map((s) => {
        const indices = own.filter((p) => p.shard === s).map((p) => p.index);
        return indices.length === 0 ? undefined : s.ask({ op, indices });
      }),
    );
    this.#record();
  }

  #record(): void {
    this.#aliveSeries.push({ t: Date.now() - this.#start, alive: this.alive().length });
  }
}

/** The factory for `workers` shards; 0 picks one per core. */
export function shardedSwarm(workers: number): SwarmFactory {
  const n = workers === 0 ? availableParallelism() : workers;
  return (config, rng) => new ShardedSwarm(config, rng, n);
}

/**
 * The threads' network statistics as one model's: counts summed, round-trip percentiles over
 * every thread's connections (each counted by its dialling end, once). Members are the nodes
 * joined (a thread also counts the nodes of other threads its own have met).
 */
function mergeNetworkStats(
  parts: { stats: NetworkStats; rtts: readonly number[] }[],
  members: number,
): NetworkStats {
  const rtts = parts.flatMap((p) => p.rtts);
  const sum = (f: (s: NetworkStats) => number) => parts.reduce((n, p) => n + f(p.stats), 0);
  return {
    members,
    connections: rtts.length,
    rttP50Ms: percentile(rtts, 50),
    rttP95Ms: percentile(rtts, 95),
    bytes: sum((s) => s.bytes),
    chunks: sum((s) => s.chunks),
    droppedChunks: sum((s) => s.droppedChunks),
    droppedBytes: sum((s) => s.droppedBytes),
    closedByPartition: sum((s) => s.closedByPartition),
    dialsDropped: sum((s) => s.dialsDropped),
    inFlight: sum((s) => s.inFlight),
    held: sum((s) => s.held),
  };
}
