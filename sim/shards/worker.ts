/**
 * A shard: a worker thread that hosts a slice of a simulated swarm's nodes. Its nodes reach each
 * other over the in-process transport and the nodes of other shards over MessagePorts
 * (thread-transport.ts); the main thread starts, asks and stops them by message (messages.ts).
 * Each shard meters its own nodes; the main thread sums the shards.
 */
import { getHeapStatistics } from 'node:v8';
import { type MessagePort, parentPort, workerData } from 'node:worker_threads';
import { silentLogger } from '../../src/net/libp2p.ts';
import { WireMeter } from '../../src/net/wire-meter.ts';
import { CidxNode } from '../../src/node/node.ts';
import { parseProfile } from '../../src/profile/parse.ts';
import { SimNetwork } from '../network/network.ts';
import { RegionTable } from '../network/regions.ts';
import { simNodeAddr } from '../node-addr.ts';
import { emptyCounters, simNodeOptions } from '../node-options.ts';
import {
  locate,
  type ShardInit,
  type ShardMessage,
  type ShardReply,
  type ShardRequest,
} from './messages.ts';
import { acceptDials, crossed, ShardTransport } from './thread-transport.ts';

/** A shard's nodes, and what it counted. */
class ShardHost {
  readonly #init: ShardInit;
  readonly #meter = new WireMeter();
  readonly #net: SimNetwork;
  readonly #log = silentLogger().forComponent('cidx:sim-shards');
  readonly #links: Map<number, MessagePort>;
  readonly #counters = emptyCounters();
  readonly #nodes = new Map<number, CidxNode>();

  constructor(init: ShardInit) {
    this.#init = init;
    const { regions, ...rest } = init.network;
    this.#net = new SimNetwork({
      ...rest,
      ...(regions ? { regions: new RegionTable(regions.regions, regions.rtt) } : {}),
    });
    this.#links = new Map(init.links.map((l) => [l.shard, l.port]));
    for (const l of init.links) acceptDials(l.port, this.#net.model, this.#log);
  }

  #node(index: number): CidxNode {
    const node = this.#nodes.get(index);
    if (node === undefined)
      throw new Error(`node ${index} is not running in shard ${this.#init.shard}`);
    return node;
  }

  async #start(index: number, bootstrap: string[]): Promise<{ addrs: string[] }> {
    const { config, shard, shards } = this.#init;
    if (this.#nodes.has(index)) throw new Error(`node ${index} already runs in shard ${shard}`);
    const self = simNodeAddr(index);
    const on = this.#net.join(`n${index}`); // the name locate() gives its address
    const node = await CidxNode.create({
      transport: 'memory',
      transportFactory: (c) =>
        new ShardTransport({
          local: on.transport(c),
          links: this.#links,
          shard,
          locate: (addr) => locate(addr, shards),
          self,
          log: this.#log,
        }),
      encryption: 'plaintext',
      listen: [self],
      bootstrap,
      ...simNodeOptions(config, this.#meter, this.#counters),
    });
    node.on('notification', () => {
      this.#counters.notifications++;
    });
    await node.start();
    this.#nodes.set(index, node);
    return { addrs: node.addrs };
  }

  async #halt(indices: number[], crash: boolean): Promise<null> {
    await Promise.all(
      indices.map(async (i) => {
        const node = this.#nodes.get(i);
        if (node === undefined) return;
        this.#nodes.delete(i);
        if (crash) for (const c of node.libp2p.getConnections()) c.abort(new Error('crashed'));
        await node.stop().catch(() => {});
      }),
    );
    return null;
  }

  async handle(m: ShardRequest): Promise<unknown> {
    switch (m.op) {
      case 'start':
        return this.#start(m.index, m.bootstrap);
      case 'create': {
        const { id } = await this.#node(m.index).create(parseProfile(m.profile));
        return { id };
      }
      case 'search': {
        const found = await this.#node(m.index).search(parseProfile(m.profile), { k: m.k });
        return found.map(({ id, similarity }) => ({ id, similarity }));
      }
      case 'update':
        await this.#node(m.index).update(m.id, parseProfile(m.profile));
        return null;
      case 'dissolve':
        await this.#node(m.index).dissolve(m.id);
        return null;
      case 'republish':
        await this.#node(m.index).republish();
        return null;
      case 'info': {
        const i = this.#node(m.index).info();
        return {
          descriptors: i.stored.descriptors,
          keys: i.stored.keys,
          bytes: i.stored.bytes,
          owned: i.owned,
        };
      }
      case 'kill':
        return this.#halt(m.indices, true);
      case 'leave':
        return this.#halt(m.indices, false);
      case 'stop':
        await this.#halt([...this.#nodes.keys()], false);
        for (const l of this.#init.links) l.port.close();
        this.#net.close();
        return null;
      case 'heap':
        // After a full collection where the thread may run one (--expose-gc): the live heap.
        (globalThis as { gc?: () => void }).gc?.();
        return getHeapStatistics().used_heap_size;
      case 'meter':
        return {
          traffic: this.#meter.snapshot(),
          counters: structuredClone(this.#counters),
          connections: { ...this.#meter.connections },
          events: Object.fromEntries(this.#meter.events),
          crossConnections: crossed.connections,
          network: { stats: this.#net.stats(), rtts: this.#net.model.rtts() },
        };
    }
  }
}

function serve(port: MessagePort, host: ShardHost): void {
  port.on('message', (m: ShardMessage) => {
    host.handle(m).then(
      (value) => port.postMessage({ id: m.id, ok: true, value } satisfies ShardReply),
      (err: unknown) => {
        const e = err instanceof Error ? err : new Error(String(err));
        port.postMessage({
          id: m.id,
          ok: false,
          error: { name: e.name, message: e.message },
        } satisfies ShardReply);
      },
    );
  });
}

// Imported outside a worker thread (a tool loading every module of the simulator): no shard.
if (parentPort !== null) serve(parentPort, new ShardHost(workerData as ShardInit));
