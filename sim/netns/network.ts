/**
 * A test network of Linux network namespaces: a "switch" namespace holding a bridge, one
 * namespace per host with a veth port on it and its own address, and (by default) a control
 * leg from this process's namespace onto the bridge, so this process reaches every host's
 * JSON-RPC directly. The bridge, the hosts and every rule live in namespaces of the run: the
 * machine's own network gains only the control link and its /20 route.
 *
 * veth pairs are created inside the switch namespace with the peer placed straight into the
 * host namespace (`peer name eth0 netns <host>`): each name is checked only where it is
 * created, and both namespaces are fresh, so no temporary name and rename is needed.
 */
import { type ChildProcess, type SpawnOptions, spawn } from 'node:child_process';
import { onTeardown } from '../teardown.ts';
import {
  controlAddress,
  freeSlots,
  hostAddress,
  MAX_LINK_NAME,
  SLOT_COUNT,
  type Subnet,
  slotSubnet,
  takeRunPrefix,
} from './names.ts';
import { deleteBatch, killAllIn, linkExists, listNamespaces } from './namespaces.ts';
import { healRuleset, partitionRuleset } from './rulesets.ts';
import { requireNetns, runTool, runToolSync, ToolError, type Tools } from './tools.ts';

export interface Host {
  /** The namespace's name (for `ip netns exec`). */
  netns: string;
  /** The host's address on the test network. */
  address: string;
}

export interface NetworkOptions {
  /** Hosts to create at once (more with addHosts). Default 0. */
  hosts?: number;
  /** A veth from this process's namespace onto the bridge (default true). */
  control?: boolean;
}

/** The bridge in the switch namespace. */
const BRIDGE = 'br0';
/** Host namespaces set up at once (each is one `ip -batch`). */
const SETUP_CONCURRENCY = 8;

export class NetnsNetwork {
  readonly prefix: string;
  readonly switchNs: string;
  /** The root-namespace end of the control leg, if any. */
  readonly controlLink: string | undefined;
  readonly hosts: Host[] = [];
  #subnet: Subnet | undefined;
  #used = 0;
  readonly #legs = new Map<string, number>();
  #partitioned = false;
  #destroyed: Promise<void> | undefined;
  readonly #tools: Tools;
  readonly #release: () => void;
  readonly #unregister: () => void;

  private constructor(tools: Tools, control: boolean) {
    this.#tools = tools;
    const { prefix, release } = takeRunPrefix();
    this.prefix = prefix;
    this.#release = release;
    this.switchNs = `${prefix}-sw`;
    this.controlLink = control ? prefix : undefined;
    if (prefix.length > MAX_LINK_NAME)
      throw new Error(`run prefix ${prefix} is longer than a link name may be`);
    this.#unregister = onTeardown({
      label: `namespaces ${prefix}-*`,
      run: () => this.destroy(),
      runSync: () => this.#destroySync(),
    });
  }

  /** Creates the switch, the control leg and `hosts` hosts; on any failure removes them again. */
  static async create(opts: NetworkOptions = {}): Promise<NetnsNetwork> {
    const net = new NetnsNetwork(requireNetns(), opts.control ?? true);
    try {
      await net.#setUp();
      if (opts.hosts) await net.addHosts(opts.hosts);
      return net;
    } catch (err) {
      await net.destroy().catch(() => {});
      throw err;
    }
  }

  /** The run's /20 (198.18.0.0/15 is split into slots). */
  get subnet(): Subnet {
    if (!this.#subnet) throw new Error('network not set up');
    return this.#subnet;
  }

  /** This process's address on the test network, when there is a control leg. */
  get controlAddress(): string | undefined {
    return this.controlLink === undefined ? undefined : controlAddress(this.subnet);
  }

  /** Runs `ip` (optionally inside a namespace) with a batch of commands, one a line. */
  ipBatch(lines: string, netns?: string): Promise<string> {
    return runTool(this.#tools.ip, [...(netns ? ['-n', netns] : []), '-batch', '-'], {
      input: lines,
    });
  }

  /** Runs `nft -f -` with a ruleset inside a namespace. */
  nft(netns: string, ruleset: string): Promise<string> {
    return runTool(this.#tools.ip, ['netns', 'exec', netns, this.#tools.nft, '-f', '-'], {
      input: ruleset,
    });
  }

  async #setUp(): Promise<void> {
    const leftover = listNamespaces(`${this.prefix}-`);
    if (leftover.length > 0)
      throw new ToolError(
        `namespaces of an earlier run with this pid exist (${leftover[0]}); run cidx sim --cleanup`,
      );
    await this.ipBatch(`netns add ${this.switchNs}\n`);
    await this.ipBatch(
      `link add ${BRIDGE} type bridge\nlink set ${BRIDGE} up\nlink set lo up\n`,
      this.switchNs,
    );
    if (this.controlLink === undefined) {
      this.#subnet = slotSubnet(process.pid % SLOT_COUNT);
      return;
    }
    await this.ipBatch(
      `link add ctl type veth peer name ${this.controlLink} netns ${process.pid}\n` +
        `link set ctl master ${BRIDGE} up\n`,
      this.switchNs,
    );
    await this.#claimSlot(this.controlLink);
  }

  /** Routes of this namespace, as CIDR blocks, except those through `exceptDev`. */
  async #routes(exceptDev?: string): Promise<string[]> {
    const out = await runTool(this.#tools.ip, ['-j', '-4', 'route', 'show', 'table', 'all']);
    const routes = JSON.parse(out) as { dst: string; dev?: string }[];
    return routes
      .filter((r) => typeof r.dst === 'string' && r.dst !== 'default' && r.dev !== exceptDev)
      .map((r) => (r.dst.includes('/') ? r.dst : `${r.dst}/32`));
  }

  /**
   * Gives the control link the first address of a /20 no route of this machine overlaps,
   * starting at a slot derived from the pid; if a concurrent run took the same slot
   * meanwhile (its route appears next to ours), moves on to the next.
   */
  async #claimSlot(link: string): Promise<void> {
    for (const slot of freeSlots(await this.#routes(), process.pid % SLOT_COUNT)) {
      const subnet = slotSubnet(slot);
      const addr = `${controlAddress(subnet)}/${subnet.prefixLength}`;
      await runTool(this.#tools.ip, ['addr', 'add', addr, 'dev', link]);
      if (freeSlots(await this.#routes(link), slot)[0] === slot) {
        this.#subnet = subnet;
        await runTool(this.#tools.ip, ['link', 'set', link, 'up']);
        return;
      }
      await runTool(this.#tools.ip, ['addr', 'del', addr, 'dev', link]);
    }
    throw new ToolError('no free /20 in 198.18.0.0/15 for the test network');
  }

  /**
   * Connects a fresh namespace to the bridge: a veth port `portName` in the switch, `eth0`
   * with the next free address in the namespace. Returns that address.
   */
  async attach(netns: string, portName: string): Promise<string> {
    const address = hostAddress(this.subnet, this.#used++);
    await this.ipBatch(
      `link add ${portName} type veth peer name eth0 netns ${netns}\n` +
        `link set ${portName} master ${BRIDGE} up\n`,
      this.switchNs,
    );
    await this.ipBatch(
      `link set lo up\naddr add ${address}/${this.subnet.prefixLength} dev eth0\nlink set eth0 up\n`,
      netns,
    );
    return address;
  }

  /** A new name for a namespace of this run (`<prefix>-<kind><n>`), and its switch port. */
  nextLeg(kind: string): { netns: string; port: string } {
    const n = this.#legs.get(kind) ?? 0;
    this.#legs.set(kind, n + 1);
    return { netns: `${this.prefix}-${kind}${n}`, port: `${kind}${n}` };
  }

  /** Adds `count` hosts; resolves when all are up. */
  async addHosts(count: number): Promise<Host[]> {
    this.#checkOpen();
    const legs = Array.from({ length: count }, () => this.nextLeg('h'));
    await this.ipBatch(legs.map((l) => `netns add ${l.netns}\n`).join(''));
    const added: Host[] = new Array(count);
    let next = 0;
    const worker = async () => {
      while (next < legs.length) {
        const i = next++;
        const leg = legs[i] as { netns: string; port: string };
        added[i] = { netns: leg.netns, address: await this.attach(leg.netns, leg.port) };
      }
    };
    await Promise.all(Array.from({ length: Math.min(SETUP_CONCURRENCY, count) }, worker));
    this.hosts.push(...added);
    return added;
  }

  /**
   * The argv that runs `cmd` inside a namespace as the same process: `ip netns exec` and
   * `setpriv` both exec in place, so the pid a spawn returns is `cmd`'s own and signals
   * (SIGSTOP, SIGKILL …) reach it; setpriv makes it die with this process (PR_SET_PDEATHSIG).
   */
  command(netns: string, cmd: string, args: readonly string[]): [string, string[]] {
    const guard = this.#tools.setpriv ? [this.#tools.setpriv, '--pdeathsig', 'KILL', '--'] : [];
    return [this.#tools.ip, ['netns', 'exec', netns, ...guard, cmd, ...args]];
  }

  /** Spawns `cmd` inside a host's namespace (it is killed at the latest when the network goes). */
  spawn(
    host: Host | string,
    cmd: string,
    args: readonly string[],
    opts: SpawnOptions = {},
  ): ChildProcess {
    this.#checkOpen();
    const [file, argv] = this.command(typeof host === 'string' ? host : host.netns, cmd, args);
    return spawn(file, argv, opts);
  }

  /**
   * Splits hosts into groups that cannot exchange packets (drop rules on the bridge); hosts in
   * no group keep talking to everyone. Replaces an earlier partition in one step. Existing TCP
   * connections across are not closed: their packets are dropped, they stall and retransmit,
   * and resume after heal (unless a side's timeout ends them first) — unlike the in-process
   * model, whose partition closes connections.
   */
  async partition(groups: readonly (readonly (Host | string)[])[]): Promise<void> {
    this.#checkOpen();
    const addrs = groups.map((g) => g.map((h) => (typeof h === 'string' ? h : h.address)));
    await this.nft(this.switchNs, partitionRuleset(addrs));
    this.#partitioned = true;
  }

  /** Removes the partition. */
  async heal(): Promise<void> {
    this.#checkOpen();
    await this.nft(this.switchNs, healRuleset());
    this.#partitioned = false;
  }

  get partitioned(): boolean {
    return this.#partitioned;
  }

  #checkOpen(): void {
    if (this.#destroyed) throw new Error(`network ${this.prefix} is destroyed`);
  }

  /**
   * Kills every process left in the run's namespaces, deletes the control link and the
   * namespaces (their veths and rules go with them). Idempotent; also runs on
   * SIGINT/SIGTERM/exit. The control link goes first: deleting it removes its veth pair at
   * once, while a pair whose namespace is deleted disappears a little later, in the kernel's
   * own time.
   */
  destroy(): Promise<void> {
    this.#destroyed ??= (async () => {
      const errors: string[] = [];
      const names = listNamespaces(`${this.prefix}-`);
      killAllIn(names);
      const link = this.controlLink;
      if (link !== undefined && linkExists(link))
        await runTool(this.#tools.ip, ['link', 'del', link]).catch((e: Error) =>
          errors.push(e.message),
        );
      if (names.length > 0)
        await runTool(this.#tools.ip, ['-force', '-batch', '-'], {
          input: deleteBatch(names),
        }).catch((e: Error) => errors.push(e.message));
      this.#unregister();
      this.#release();
      const left = listNamespaces(`${this.prefix}-`);
      if (link !== undefined && linkExists(link)) left.push(link);
      // A tool's error matters only if something is left (another cleanup may have raced).
      if (left.length > 0)
        throw new ToolError(
          `cleanup of ${this.prefix} left ${left.join(', ')}: ${errors.join('; ')}`,
        );
    })();
    return this.#destroyed;
  }

  #destroySync(): void {
    const names = listNamespaces(`${this.prefix}-`);
    killAllIn(names);
    if (this.controlLink !== undefined && linkExists(this.controlLink))
      runToolSync(this.#tools.ip, ['link', 'del', this.controlLink]);
    if (names.length > 0)
      runToolSync(this.#tools.ip, ['-force', '-batch', '-'], { input: deleteBatch(names) });
  }
}

/** Runs `body` with a fresh network and destroys it afterwards, also when `body` throws. */
export async function withNetwork<T>(
  opts: NetworkOptions,
  body: (net: NetnsNetwork) => Promise<T>,
): Promise<T> {
  const net = await NetnsNetwork.create(opts);
  try {
    return await body(net);
  } finally {
    await net.destroy();
  }
}
