/**
 * The namespace harness on real namespaces, veths, a bridge and nftables. Needs Linux, root,
 * iproute2 and nftables (CI runs as root); without them every test here fails with the reason.
 */
import { spawn } from 'node:child_process';
import { connect as tcpConnect } from 'node:net';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  cleanupLeftovers,
  type Host,
  NatRouter,
  NetnsNetwork,
  requireNetns,
  withNetwork,
} from '../../sim/netns/index.ts';
import { linkExists, listNamespaces } from '../../sim/netns/namespaces.ts';
import { connect, converse, echoServer, stillAlive } from '../support/netns-probe.ts';

const MINE = `cidx-${process.pid}-`;
/** Long enough for any connect on a local bridge; a dropped SYN never answers at all. */
const OK_MS = 20_000;
/** How long a blocked connect is given before it counts as blocked. */
const BLOCKED_MS = 1_500;
/** Set-up and teardown start processes: bounded, but not by vitest's 10 s default. */
const HOOK_MS = 120_000;

beforeAll(() => {
  requireNetns(); // fails every test with the reason (not Linux, not root, no ip/nft)
});

afterAll(() => {
  expect(listNamespaces(MINE)).toEqual([]);
});

/** Connects from this process (the control leg); resolves with the greeting line. */
function controlConnect(addr: string, port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const s = tcpConnect(port, addr);
    s.setTimeout(OK_MS, () => s.destroy(new Error('timeout')));
    s.once('data', (d) => {
      resolve(d.toString().split('\n')[0] as string);
      s.destroy();
    });
    s.once('error', reject);
  });
}

describe('namespaces', () => {
  it('creates a switch, hosts and a control leg, and removes them all', async () => {
    let prefix = '';
    let link = '';
    await withNetwork({ hosts: 3 }, async (net) => {
      prefix = net.prefix;
      link = net.controlLink as string;
      expect(net.prefix.startsWith(MINE)).toBe(true);
      expect(listNamespaces(`${net.prefix}-`).sort()).toEqual(
        [`${net.prefix}-h0`, `${net.prefix}-h1`, `${net.prefix}-h2`, `${net.prefix}-sw`].sort(),
      );
      expect(linkExists(link)).toBe(true);
      expect(new Set(net.hosts.map((h) => h.address)).size).toBe(3);
      // Every host is reachable from this process through the control leg.
      const servers = await Promise.all(net.hosts.map((h) => echoServer(net, h, 7000)));
      for (const h of net.hosts)
        expect(await controlConnect(h.address, 7000)).toBe(`hello ${net.controlAddress}`);
      // Left running on purpose: destroy kills what runs inside the namespaces.
      expect(servers.every((s) => s.exitCode === null)).toBe(true);
    });
    expect(listNamespaces(prefix)).toEqual([]);
    expect(linkExists(link)).toBe(false);
  });

  it('removes everything when the body throws', async () => {
    let prefix = '';
    await expect(
      withNetwork({ hosts: 2 }, async (net) => {
        prefix = net.prefix;
        expect(listNamespaces(prefix)).toHaveLength(3);
        throw new Error('body failed');
      }),
    ).rejects.toThrow('body failed');
    expect(prefix).not.toBe('');
    expect(listNamespaces(prefix)).toEqual([]);
  });
});

describe('partition and heal', () => {
  let net: NetnsNetwork;
  beforeAll(async () => {
    net = await NetnsNetwork.create({ hosts: 4 });
    await Promise.all(net.hosts.map((h) => echoServer(net, h, 7000)));
  }, HOOK_MS);
  afterAll(() => net?.destroy(), HOOK_MS);

  it('a 50/50 partition drops traffic across the groups, not within; heal restores it', async () => {
    const [a0, a1, b0, b1] = net.hosts as [Host, Host, Host, Host];
    expect(await connect(net, a0, b0.address, 7000, OK_MS)).toBe(`hello ${a0.address}`);
    await net.partition([
      [a0, a1],
      [b0, b1],
    ]);
    expect(net.partitioned).toBe(true);
    expect(await connect(net, a0, a1.address, 7000, OK_MS)).toBe(`hello ${a0.address}`);
    expect(await connect(net, b1, b0.address, 7000, OK_MS)).toBe(`hello ${b1.address}`);
    expect(await connect(net, a0, b0.address, 7000, BLOCKED_MS)).toBe('timeout');
    expect(await connect(net, b1, a1.address, 7000, BLOCKED_MS)).toBe('timeout');
    // The control leg is in no group: it still reaches both sides.
    expect(await controlConnect(b0.address, 7000)).toBe(`hello ${net.controlAddress}`);
    expect(await controlConnect(a0.address, 7000)).toBe(`hello ${net.controlAddress}`);
    await net.heal();
    expect(await connect(net, a0, b0.address, 7000, OK_MS)).toBe(`hello ${a0.address}`);
    expect(await connect(net, b1, a1.address, 7000, OK_MS)).toBe(`hello ${b1.address}`);
  });

  it('an open TCP connection across stalls during the partition and resumes after heal', async () => {
    const [a0, , b0, b1] = net.hosts as [Host, Host, Host, Host];
    const c = await converse(net, a0, b0.address, 7000);
    try {
      expect(await c.say('one', OK_MS)).toBe('one');
      await net.partition([[a0], [b0, b1]]);
      // Not closed, not refused: the line is simply not delivered while the partition lasts.
      expect(await c.say('two', BLOCKED_MS)).toBeUndefined();
      await net.heal();
      // TCP retransmits it once packets pass again.
      expect(await c.next(OK_MS)).toBe('two');
      expect(await c.say('three', OK_MS)).toBe('three');
    } finally {
      c.close();
    }
  });
});

describe('NAT router', () => {
  it('lets a home host reach a public host, masqueraded, and nothing in unless forwarded', async () => {
    await withNetwork({ hosts: 1 }, async (net) => {
      const pub = net.hosts[0] as Host;
      const nat = await NatRouter.create(net, { homes: 1 });
      const home = nat.homes[0] as Host;
      await echoServer(net, pub, 7000);
      await echoServer(net, home, 7000);
      // Out: allowed, and the public host sees the router's address.
      expect(await connect(net, home, pub.address, 7000, OK_MS)).toBe(
        `hello ${nat.router.address}`,
      );
      // In: even with a route to the LAN through the router, a new connection is dropped.
      await net.ipBatch(`route add ${nat.lanCidr} via ${nat.router.address}\n`, pub.netns);
      expect(await connect(net, pub, home.address, 7000, BLOCKED_MS)).toBe('timeout');
      // A forward restricted to the control leg admits this process, not the public host.
      const fw = await nat.forward(home, 7000, 17000);
      expect(fw).toEqual({ address: nat.router.address, port: 17000 });
      expect(await controlConnect(fw.address, fw.port)).toBe(`hello ${net.controlAddress}`);
      expect(await connect(net, pub, fw.address, fw.port, BLOCKED_MS)).not.toMatch(/^hello/);
    });
  });
});

describe('leftovers', () => {
  it('cleanupLeftovers removes the namespaces of a run killed with SIGKILL, not live ones', async () => {
    const child = spawn(
      process.execPath,
      [join(import.meta.dirname, '..', 'support', 'harness-child.ts'), 'sleeper'],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    const exited = new Promise((resolve) => child.once('exit', resolve));
    let made: { prefix: string; pids: number[] };
    try {
      const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
      made = JSON.parse((await lines.next()).value as string);
    } finally {
      child.kill('SIGKILL'); // no teardown can run: the namespaces leak
      await exited;
    }
    expect(listNamespaces(`${made.prefix}-`)).toHaveLength(2);
    await withNetwork({ hosts: 1 }, async (live) => {
      expect(listNamespaces(`${made.prefix}-`)).toHaveLength(2);
      const report = await cleanupLeftovers();
      // Other runs' leftovers may go too (test files run side by side): look at this one's.
      expect(report.namespaces.filter((n) => n.startsWith(`${made.prefix}-`)).sort()).toEqual([
        `${made.prefix}-h0`,
        `${made.prefix}-sw`,
      ]);
      expect(listNamespaces(`${made.prefix}-`)).toEqual([]);
      expect(linkExists(made.prefix)).toBe(false);
      // The sleeper died with its parent (PR_SET_PDEATHSIG); nothing of it remains.
      expect(await stillAlive(made.pids)).toEqual([]);
      // This process's run is alive: left alone.
      expect(listNamespaces(`${live.prefix}-`)).toHaveLength(2);
    });
  });
});
