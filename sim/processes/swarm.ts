/**
 * A swarm of `cidx node` processes (`cidx sim --processes`): each node its own process with its
 * own data directory, TCP + noise on 127.0.0.1, driven only over its JSON-RPC port. With
 * `netns` (`--netns`) each also runs in a network namespace of its own on a private bridge, so
 * the nodes are separate hosts to each other and `partition` drops packets between groups
 * (nftables). `kill` is SIGKILL, `leave` SIGTERM, `freeze` SIGSTOP and `thaw` SIGCONT. Traffic
 * and counters are the sum of every node's `stats`. Every process, namespace and directory goes
 * when the swarm stops, on Ctrl-C and at exit (sim/teardown.ts).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { StreamTraffic } from '../../src/net/wire-meter.ts';
import { startInTurn } from '../join-order.ts';
import { type Host, NetnsNetwork } from '../netns/index.ts';
import type { Rng } from '../random.ts';
import { RpcPeer } from '../remote/peer.ts';
import { gather, sumCounters, sumTraffic } from '../remote/tally.ts';
import type {
  ProcessFigures,
  SimPeer,
  SimSwarm,
  SwarmConfig,
  SwarmCounters,
} from '../swarm-api.ts';
import { ProcessHarness } from './harness.ts';
import type { NodeProcess } from './node-process.ts';

export interface ProcessSwarmOptions {
  /** Each node in its own network namespace (root, Linux). */
  netns?: boolean;
  /** Keep each node's /metrics (Prometheus, about 9 MiB of RSS a node); off by default. */
  metrics?: boolean;
  /** `cidx`'s entry point (default: this package's dist/cli.js). */
  cli?: string;
}

/**
 * Nodes started at once: each start boots a Node runtime, which on a 2-core machine only
 * slows the others beyond a few.
 */
const START_CONCURRENCY = 4;

/** What the swarm makes once, before its first node. */
interface SetUp {
  harness: ProcessHarness;
  net: NetnsNetwork | undefined;
  /** `cidx node` flags every node gets. */
  args: string[];
}

/** A node of the swarm: its process and, with --netns, its host. */
export class ProcessPeer extends RpcPeer {
  readonly proc: NodeProcess;
  readonly host: Host | undefined;

  constructor(index: number, proc: NodeProcess, host: Host | undefined) {
    super(index, proc.client);
    this.proc = proc;
    this.host = host;
  }
}

export class ProcessSwarm implements SimSwarm {
  readonly #peers: ProcessPeer[] = [];
  readonly #config: SwarmConfig;
  readonly #rng: Rng;
  readonly #opts: ProcessSwarmOptions;
  readonly #start = Date.now();
  readonly #aliveSeries: { t: number; alive: number }[] = [];
  readonly #startMs: number[] = [];
  readonly #setUp: Promise<SetUp>;
  /** The side cut off by `partition`, until `heal`. */
  #side: Set<ProcessPeer> | undefined;
  #nextIndex = 0;
  #stopped = false;

  constructor(config: SwarmConfig, rng: Rng, opts: ProcessSwarmOptions = {}) {
    this.#config = config;
    this.#rng = rng;
    this.#opts = opts;
    this.#setUp = this.#prepare();
    // Observed by join and stop; a failure here must not also surface as unhandled.
    this.#setUp.catch(() => {});
  }

  async #prepare(): Promise<SetUp> {
    const net = this.#opts.netns ? await NetnsNetwork.create() : undefined;
    try {
      const harness = new ProcessHarness({
        ...(net ? { network: net } : {}),
        ...(this.#opts.cli ? { cli: this.#opts.cli } : {}),
      });
      // The scenario's index, params and timing, as the config file `cidx node` reads.
      const config = join(harness.root, 'config.json');
      writeFileSync(config, JSON.stringify(this.#config.settings));
      const args = ['--config', config, ...(this.#opts.metrics ? [] : ['--no-metrics'])];
      return { harness, net, args };
    } catch (err) {
      await net?.destroy();
      throw err;
    }
  }

  get peers(): readonly SimPeer[] {
    return this.#peers;
  }

  alive(): ProcessPeer[] {
    return this.#peers.filter((p) => p.alive);
  }

  async join(count: number, everyMs: number, onJoined?: () => void): Promise<SimPeer[]> {
    await this.#setUp;
    return startInTurn(
      { count, everyMs, concurrency: START_CONCURRENCY, empty: this.alive().length === 0 },
      () => this.#startOne(),
      onJoined,
    );
  }

  async #startOne(): Promise<ProcessPeer> {
    const { harness, net, args } = await this.#setUp;
    const index = this.#nextIndex++; // taken before any await: joins run concurrently
    const boot = this.#rng
      .sample(
        this.alive().filter((p) => !p.frozen),
        this.#config.bootstrapPeers ?? 3,
      )
      .flatMap((p) => p.proc.ready.addrs.slice(0, 1));
    const host = net ? (await net.addHosts(1))[0] : undefined;
    const t = Date.now();
    const proc = await harness.start({
      name: `n${index}`,
      bootstrap: boot,
      args,
      ...(host ? { host } : {}),
    });
    this.#startMs.push(Date.now() - t);
    const peer = new ProcessPeer(index, proc, host);
    this.#peers.push(peer);
    this.#peers.sort((a, b) => a.index - b.index);
    // A node that dies by itself is no longer alive (its last counters still count).
    void proc.exited.then(() => {
      if (!peer.alive) return;
      peer.alive = false;
      this.#record();
    });
    if (this.#side !== undefined) await this.#joinLargerSide(peer);
    this.#record();
    return peer;
  }

  async kill(peers: SimPeer[]): Promise<void> {
    await this.#end(peers, 'kill');
  }

  async leave(peers: SimPeer[]): Promise<void> {
    await this.#end(peers, 'leave');
  }

  /** SIGKILL (`kill`) or SIGTERM (`leave`), each node's last stats and info kept first. */
  async #end(peers: SimPeer[], how: 'kill' | 'leave'): Promise<void> {
    const own = this.#own(peers);
    await Promise.all(own.map((p) => p.remember()));
    const { harness } = await this.#setUp;
    await Promise.all(
      own.map(async (p) => {
        p.alive = false;
        await harness[how](p.proc);
      }),
    );
    this.#record();
  }

  async freeze(peers: SimPeer[]): Promise<void> {
    const own = this.#own(peers);
    await Promise.all(own.map((p) => p.remember()));
    const { harness } = await this.#setUp;
    for (const p of own) {
      harness.freeze(p.proc);
      p.frozen = true;
    }
  }

  async thaw(peers: SimPeer[]): Promise<void> {
    const { harness } = await this.#setUp;
    for (const p of this.#own(peers)) {
      harness.thaw(p.proc);
      p.frozen = false;
    }
  }

  async partition(side: SimPeer[]): Promise<void> {
    this.#side = new Set(this.#own(side));
    await this.#applyPartition();
  }

  async heal(): Promise<void> {
    const { net } = await this.#setUp;
    if (!net) throw new Error('partitions need --netns');
    this.#side = undefined;
    await net.heal();
  }

  async #applyPartition(): Promise<void> {
    const { net } = await this.#setUp;
    if (!net) throw new Error('partitions need --netns');
    const side = this.#side ?? new Set();
    const hostsOf = (ps: ProcessPeer[]) => ps.flatMap((p) => (p.host ? [p.host] : []));
    const alive = this.alive();
    await net.partition([
      hostsOf(alive.filter((p) => side.has(p))),
      hostsOf(alive.filter((p) => !side.has(p))),
    ]);
  }

  /** A node joining during a partition joins the side most live nodes are on. */
  async #joinLargerSide(peer: ProcessPeer): Promise<void> {
    const side = this.#side;
    if (side === undefined) return;
    const alive = this.alive().filter((p) => p !== peer);
    const inSide = alive.filter((p) => side.has(p)).length;
    if (inSide > alive.length - inSide) side.add(peer);
    await this.#applyPartition();
  }

  async stop(): Promise<void> {
    if (this.#stopped) return;
    this.#stopped = true;
    for (const p of this.#peers) p.alive = false;
    let setUp: SetUp;
    try {
      setUp = await this.#setUp;
    } catch {
      return; // nothing was made (or it was removed again)
    }
    try {
      await setUp.harness.close();
    } finally {
      await setUp.net?.destroy();
    }
  }

  async traffic(): Promise<Record<string, StreamTraffic>> {
    return sumTraffic(await gather(this.#peers));
  }

  async counters(): Promise<SwarmCounters> {
    return sumCounters(await gather(this.#peers));
  }

  async processes(): Promise<ProcessFigures> {
    const mem = this.alive().flatMap((p) => memoryOf(p.proc.pid) ?? []);
    return {
      rssMb: mem.map((m) => m.rssKb / 1024),
      anonMb: mem.map((m) => m.anonKb / 1024),
      startMs: [...this.#startMs],
    };
  }

  aliveSeries(): { t: number; alive: number }[] {
    return this.#aliveSeries;
  }

  #own(peers: SimPeer[]): ProcessPeer[] {
    return peers.map((p) => {
      if (!(p instanceof ProcessPeer) || !this.#peers.includes(p))
        throw new Error(`node ${p.index} is not of this swarm`);
      return p;
    });
  }

  #record(): void {
    this.#aliveSeries.push({ t: Date.now() - this.#start, alive: this.alive().length });
  }
}

/**
 * Resident memory of a process from /proc (kB): all of it, and its anonymous part — the rest
 * are file pages (the Node binary), shared by every node process. Undefined: gone, not Linux.
 */
function memoryOf(pid: number): { rssKb: number; anonKb: number } | undefined {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const rss = /^VmRSS:\s+(\d+) kB$/m.exec(status)?.[1];
    const anon = /^RssAnon:\s+(\d+) kB$/m.exec(status)?.[1];
    if (rss === undefined || anon === undefined) return undefined;
    return { rssKb: Number(rss), anonKb: Number(anon) };
  } catch {
    return undefined;
  }
}
