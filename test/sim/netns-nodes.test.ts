/**
 * cidx node processes in network namespaces (root, iproute2, nftables; `npm run build` first):
 * each node on its own host of a bridged test network, driven over JSON-RPC through the
 * control leg.
 */
import { readlinkSync, realpathSync, statSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Host, NetnsNetwork, requireNetns } from '../../sim/netns/index.ts';
import { listNamespaces, NETNS_DIR } from '../../sim/netns/namespaces.ts';
import { type NodeProcess, ProcessHarness } from '../../sim/processes/index.ts';
import { CidxClient, CidxHttpError } from '../../src/client/index.ts';
import { stillAlive } from '../support/netns-probe.ts';
import { variedProfiles } from '../support/swarm.ts';

/** Set-up and teardown start and stop node processes: bounded, but not by vitest's 10 s default. */
const HOOK_MS = 120_000;

describe('two cidx nodes in two namespaces', () => {
  let net: NetnsNetwork;
  let harness: ProcessHarness;
  let a: NodeProcess;
  let b: NodeProcess;
  let h0: Host;
  let h1: Host;

  beforeAll(async () => {
    requireNetns();
    net = await NetnsNetwork.create({ hosts: 2 });
    [h0, h1] = net.hosts as [Host, Host];
    harness = new ProcessHarness({ network: net });
    a = await harness.start({ name: 'a', host: h0 });
    b = await harness.start({ name: 'b', host: h1, bootstrap: [a.ready.addrs[0] as string] });
  }, HOOK_MS);

  afterAll(async () => {
    const pids = harness?.nodes.map((p) => p.pid) ?? [];
    await harness?.close();
    await net?.destroy();
    expect(await stillAlive(pids)).toEqual([]);
    expect(listNamespaces(`cidx-${process.pid}-`)).toEqual([]);
  }, HOOK_MS);

  it('run as the spawned pid itself, inside their namespaces', () => {
    // ip netns exec and setpriv exec in place: the pid signals go to is the node's.
    expect(readlinkSync(`/proc/${a.pid}/exe`)).toBe(realpathSync(process.execPath));
    expect(readlinkSync(`/proc/${a.pid}/ns/net`)).toBe(
      `net:[${statSync(`${NETNS_DIR}/${h0.netns}`).ino}]`,
    );
    expect(readlinkSync(`/proc/${a.pid}/ns/net`)).not.toBe(readlinkSync('/proc/self/ns/net'));
  });

  it('listen and serve JSON-RPC on their own hosts', () => {
    expect(a.info.netns).toBe(h0.netns);
    expect(a.ready.addrs[0]).toMatch(new RegExp(`^/ip4/${h0.address}/tcp/\\d+/p2p/`));
    expect(b.ready.rpc).toMatch(new RegExp(`^http://${h1.address}:\\d+$`));
  });

  it('one creates a community over TCP between the namespaces, the other finds it', async () => {
    const [profile] = variedProfiles(1, 16, 17);
    const made = await a.client.communityCreate({ profile });
    const found = await b.client.communitySearch({ profile, k: 3 });
    expect(found.results[0]).toMatchObject({ id: made.id, similarity: 1, contacts: a.ready.addrs });
    const info = await b.client.nodeInfo();
    expect(info.peers.connections).toBeGreaterThanOrEqual(1);
  });

  it('freeze stops a node in a namespace answering; thaw brings it back', async () => {
    harness.freeze(b);
    // A client of its own with a short bound: the node answers nothing while frozen.
    const impatient = new CidxClient(b.ready.rpc, { timeoutMs: 1_000, token: harness.token });
    await expect(impatient.nodeInfo()).rejects.toThrow(CidxHttpError);
    harness.thaw(b);
    expect((await b.client.nodeInfo()).peerId).toBe(b.ready.peerId);
  });
});
