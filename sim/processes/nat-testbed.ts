/**
 * A NAT test bed of real network stacks: `cidx node` processes on public hosts of a namespace
 * network (declared `--reachability public`: bootstrap and relay servers, with a WebSockets
 * address each), and home hosts, each behind a NAT router of its own (masquerade), whose nodes
 * are left on `auto` to find out for themselves that nobody can dial them. All share one swarm
 * key; strangers, on public hosts, hold another.
 *
 * The whole test network is numbered in private ranges (198.18/15 for the public side, as every
 * sim/netns network, and 192.168.1/24 behind each router), which AutoNAT never tests and under
 * which `auto` would serve at once (the private-range rule). Home nodes therefore run with
 * `privateSwarm: false`: `auto` waits for AutoNAT, which never confirms a private address, so
 * they stay clients — as a node behind a NAT on the internet does when AutoNAT's dial-backs
 * fail. Numbering the public side in a public range would route real addresses of the internet
 * into the machine's namespace (the control leg), so it stays in 198.18/15.
 *
 * A home node's JSON-RPC is reached through a port forward on its router, open to the control
 * leg only, so this process drives every node while peers still cannot dial a home.
 */
import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CidxClient } from '../../src/client/index.ts';
import { newSwarmKey } from '../../src/net/swarm-key.ts';
import { type Host, NatRouter, NetnsNetwork } from '../netns/index.ts';
import { type HarnessOptions, ProcessHarness } from './harness.ts';
import type { NodeProcess } from './node-process.ts';

export interface NatTestbedOptions {
  /** Public nodes (≥ 1; default 3). The first is everyone's bootstrap peer. */
  publics?: number;
  /** Home networks, one node behind each router (default 2). */
  homes?: number;
  /** Nodes on public hosts with another swarm key, bootstrapped to the first public node. */
  strangers?: number;
  /** More `cidx node` flags for every node. */
  args?: readonly string[];
  /** More settings (the --config file) for home nodes, over `privateSwarm: false`. */
  homeConfig?: Record<string, unknown>;
  /** More environment for home nodes (e.g. DEBUG for libp2p's logs). */
  homeEnv?: Record<string, string>;
  harness?: Omit<HarnessOptions, 'network'>;
}

export interface TestbedNode {
  name: string;
  process: NodeProcess;
  /** JSON-RPC: directly on the test network, or through the home router's port forward. */
  rpc: CidxClient;
  /** The RPC port's URL as this process reaches it (for /metrics). */
  url: string;
  peerId: string;
  /** The ready line's addresses. */
  addrs: string[];
  host: Host;
  /** The router a home node sits behind. */
  router?: NatRouter;
}

/** A node's TCP address (not its WebSockets one). */
export function tcpAddr(n: TestbedNode): string {
  const a = n.addrs.find((x) => x.includes('/tcp/') && !x.includes('/ws'));
  if (a === undefined) throw new Error(`${n.name} has no TCP address`);
  return a;
}

export class NatTestbed {
  readonly net: NetnsNetwork;
  readonly harness: ProcessHarness;
  /** The swarm key's file and bytes (every node but the strangers). */
  readonly swarmKeyFile: string;
  readonly swarmKey: Uint8Array;
  readonly publics: TestbedNode[] = [];
  readonly homes: TestbedNode[] = [];
  readonly strangers: TestbedNode[] = [];
  #homeConfig = '';
  #homeArgs: string[] = [];
  #homeEnv: Record<string, string> = {};
  #homeCount = 0;

  private constructor(net: NetnsNetwork, harness: ProcessHarness) {
    this.net = net;
    this.harness = harness;
    this.swarmKey = newSwarmKey();
    this.swarmKeyFile = this.#writeFile('swarm.key', this.swarmKey);
  }

  /** Builds the network and starts every node; on any failure removes all of it again. */
  static async create(opts: NatTestbedOptions = {}): Promise<NatTestbed> {
    const net = await NetnsNetwork.create();
    let bed: NatTestbed | undefined;
    try {
      bed = new NatTestbed(net, new ProcessHarness({ ...opts.harness, network: net }));
      await bed.#start(opts);
      return bed;
    } catch (err) {
      await (bed?.close() ?? net.destroy()).catch(() => {});
      throw err;
    }
  }

  #writeFile(name: string, data: Uint8Array | string): string {
    const path = join(this.harness.root, name);
    writeFileSync(path, data, { mode: 0o600 });
    chmodSync(path, 0o600);
    return path;
  }

  async #start(o: NatTestbedOptions): Promise<void> {
    const publics = o.publics ?? 3;
    if (!Number.isInteger(publics) || publics < 1) throw new Error('publics must be ≥ 1');
    const extra = o.args ?? [];
    const key = ['--swarm-key', this.swarmKeyFile];
    const publicHosts = await this.net.addHosts(publics);
    const publicArgs = (h: Host) => [
      ...['--reachability', 'public', '--listen', `/ip4/${h.address}/tcp/0/ws`],
      ...key,
      ...extra,
    ];
    const [first, ...rest] = publicHosts as [Host, ...Host[]];
    this.publics.push(await this.#direct(`p0`, first, [], publicArgs(first)));
    const boot = [this.bootstrap];
    const more = await this.harness.startMany(
      rest.map((h, i) => ({ name: `p${i + 1}`, host: h, bootstrap: boot, args: publicArgs(h) })),
    );
    this.publics.push(...more.map((p, i) => this.#node(p, rest[i] as Host)));

    this.#homeConfig = this.#writeFile(
      'home.json',
      JSON.stringify({ privateSwarm: false, ...o.homeConfig }),
    );
    this.#homeArgs = [...key, ...extra];
    this.#homeEnv = o.homeEnv ?? {};
    for (let i = 0; i < (o.homes ?? 2); i++) await this.addHome();

    const other = this.#writeFile('other.key', newSwarmKey());
    const strangerHosts = await this.net.addHosts(o.strangers ?? 0);
    for (const [i, h] of strangerHosts.entries())
      this.strangers.push(
        await this.#direct(`stranger${i}`, h, boot, ['--swarm-key', other, ...extra]),
      );
  }

  /**
   * A new home network: a router of its own (masquerade) with one node behind it, bootstrapped
   * to the first two public nodes; resolves once its JSON-RPC is forwarded to the control leg.
   */
  async addHome(): Promise<TestbedNode> {
    const name = `home${this.#homeCount++}`;
    const router = await NatRouter.create(this.net, { homes: 1 });
    const host = router.homes[0] as Host;
    const p = await this.harness.start({
      name,
      host,
      bootstrap: this.publics.slice(0, 2).map(tcpAddr),
      args: [
        ...['--config', this.#homeConfig, '--rpc-vhosts', router.router.address],
        ...this.#homeArgs,
      ],
      env: this.#homeEnv,
    });
    const port = Number(new URL(p.ready.rpc).port);
    const fwd = await router.forward(host, port, port);
    const url = `http://${fwd.address}:${fwd.port}`;
    // Never the ready line's URL: a home address means nothing outside its router's LAN.
    const node = { ...this.#node(p, host), rpc: p.clientAt(url), url, router };
    this.homes.push(node);
    return node;
  }

  async #direct(
    name: string,
    host: Host,
    bootstrap: string[],
    args: string[],
  ): Promise<TestbedNode> {
    return this.#node(await this.harness.start({ name, host, bootstrap, args }), host);
  }

  #node(p: NodeProcess, host: Host): TestbedNode {
    return {
      name: p.name,
      process: p,
      rpc: p.client,
      url: p.ready.rpc,
      peerId: p.ready.peerId,
      addrs: p.ready.addrs,
      host,
    };
  }

  /** The first public node's TCP address: every node's bootstrap peer. */
  get bootstrap(): string {
    return tcpAddr(this.publics[0] as TestbedNode);
  }

  /** A public node's WebSockets address (where a web page joins). */
  wsAddr(n: TestbedNode): string {
    const ws = n.addrs.find((a) => a.includes('/ws/'));
    if (ws === undefined) throw new Error(`${n.name} has no WebSockets address`);
    return ws;
  }

  /** Stops every node and removes the network (namespaces, routers, data directories). */
  async close(): Promise<void> {
    try {
      await this.harness.close();
    } finally {
      await this.net.destroy();
    }
  }
}
