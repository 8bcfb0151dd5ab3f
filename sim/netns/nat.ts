/**
 * A home router for NAT test beds: a router namespace with a public leg on the test network's
 * bridge and a LAN bridge of its own, and home hosts on that LAN whose default route is the
 * router. Outgoing connections leave masqueraded as the router's public address; nothing from
 * the public side reaches a home host unless a port forward says so (rulesets.ts, natRuleset).
 */
import type { Host, NetnsNetwork } from './network.ts';
import { natRuleset, type PortForward } from './rulesets.ts';

/** Every router's LAN uses the same private block, as home routers do. */
const LAN_PREFIX = '192.168.1';
const LAN_BRIDGE = 'lan0';
const MAX_HOMES = 253;

export interface NatRouterOptions {
  /** Home hosts behind the router (1…253). */
  homes: number;
}

export class NatRouter {
  readonly #net: NetnsNetwork;
  readonly #forwards: PortForward[] = [];
  /** The router's namespace and its public address. */
  readonly router: Host;
  /** The home hosts: their namespaces and LAN addresses (192.168.1.2 …). */
  readonly homes: Host[];
  readonly lanCidr = `${LAN_PREFIX}.0/24`;
  readonly gateway = `${LAN_PREFIX}.1`;

  private constructor(net: NetnsNetwork, router: Host, homes: Host[]) {
    this.#net = net;
    this.router = router;
    this.homes = homes;
  }

  /** Builds a router and its homes on `net` (removed with the network). */
  static async create(net: NetnsNetwork, opts: NatRouterOptions): Promise<NatRouter> {
    if (!Number.isInteger(opts.homes) || opts.homes < 1 || opts.homes > MAX_HOMES)
      throw new Error(`homes must be 1…${MAX_HOMES}, got ${opts.homes}`);
    const leg = net.nextLeg('r');
    await net.ipBatch(`netns add ${leg.netns}\n`);
    const router: Host = { netns: leg.netns, address: await net.attach(leg.netns, leg.port) };
    const homes: Host[] = Array.from({ length: opts.homes }, (_, j) => ({
      netns: `${leg.netns}-h${j}`,
      address: `${LAN_PREFIX}.${j + 2}`,
    }));
    await net.ipBatch(homes.map((h) => `netns add ${h.netns}\n`).join(''));
    await net.ipBatch(
      `link add ${LAN_BRIDGE} type bridge\n` +
        `addr add ${LAN_PREFIX}.1/24 dev ${LAN_BRIDGE}\nlink set ${LAN_BRIDGE} up\n` +
        homes
          .map(
            (h, j) =>
              `link add h${j} type veth peer name eth0 netns ${h.netns}\n` +
              `link set h${j} master ${LAN_BRIDGE} up\n`,
          )
          .join(''),
      router.netns,
    );
    for (const h of homes)
      await net.ipBatch(
        `link set lo up\naddr add ${h.address}/24 dev eth0\nlink set eth0 up\n` +
          `route add default via ${LAN_PREFIX}.1\n`,
        h.netns,
      );
    // A fresh namespace does not forward. /proc/sys/net is the opener's namespace's, so the
    // write happens inside the router.
    await new Promise<void>((resolve, reject) => {
      const p = net.spawn(router, '/bin/sh', ['-c', 'echo 1 > /proc/sys/net/ipv4/ip_forward'], {
        stdio: 'ignore',
      });
      p.on('error', reject);
      p.on('exit', (code) =>
        code === 0 ? resolve() : reject(new Error(`ip_forward in ${router.netns}: exit ${code}`)),
      );
    });
    const nat = new NatRouter(net, router, homes);
    await nat.#apply();
    return nat;
  }

  #apply(): Promise<string> {
    return this.#net.nft(
      this.router.netns,
      natRuleset({ wan: 'eth0', lan: LAN_BRIDGE, lanCidr: this.lanCidr, forwards: this.#forwards }),
    );
  }

  /**
   * Forwards `externalPort` on the router's public address to a home host's `port` — by
   * default only for the control leg, so this process can reach a home node's JSON-RPC while
   * peers still cannot dial in. Returns the public address and port to use.
   */
  async forward(
    home: Host,
    port: number,
    externalPort: number,
    from: string | undefined = this.#net.controlAddress,
  ): Promise<{ address: string; port: number }> {
    if (!this.homes.includes(home)) throw new Error(`${home.netns} is not behind this router`);
    if (this.#forwards.some((f) => f.externalPort === externalPort))
      throw new Error(`port ${externalPort} is forwarded already`);
    this.#forwards.push({ externalPort, to: home.address, port, ...(from ? { from } : {}) });
    try {
      await this.#apply();
    } catch (err) {
      this.#forwards.pop();
      throw err;
    }
    return { address: this.router.address, port: externalPort };
  }
}
