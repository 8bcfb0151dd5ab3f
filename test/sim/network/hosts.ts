import { randomBytes } from 'node:crypto';
import type { MemberOptions, SimNetwork } from '../../../sim/network/network.ts';
import { type CidxLibp2p, createHost } from '../../../src/net/libp2p.ts';
import type { NodeOptions } from '../../../src/node/config.ts';
import { CidxNode } from '../../../src/node/node.ts';

/** Listen addresses unique to one test run. */
const tag = randomBytes(4).toString('hex');

/** The host options that put a node on `net` under `name`. */
export function onNetwork(net: SimNetwork, name: string, member: MemberOptions = {}) {
  const n = net.join(name, member);
  return {
    transport: 'memory' as const,
    transportFactory: n.transport,
    connectionGater: n.gater,
    encryption: 'plaintext' as const,
    listen: [`/memory/net-${tag}-${name}`],
  };
}

/** A started libp2p host (two DHTs, identify, ping) on the simulated network. */
export async function host(net: SimNetwork, name: string): Promise<CidxLibp2p> {
  const h = await createHost({ ...onNetwork(net, name), simulation: true });
  await h.start();
  return h;
}

/** A started cidx node on the simulated network. */
export async function cidxNode(
  net: SimNetwork,
  name: string,
  o: Partial<NodeOptions> = {},
  member: MemberOptions = {},
): Promise<CidxNode> {
  const n = await CidxNode.create({
    ...onNetwork(net, name, member),
    timing: { requestTimeoutMs: 10_000, lookupTimeoutMs: 20_000 },
    ...o,
  });
  await n.start();
  return n;
}

/** A cidx node on the plain memory transport (no network model), for comparisons. */
export async function plainNode(name: string, o: Partial<NodeOptions> = {}): Promise<CidxNode> {
  const n = await CidxNode.create({
    transport: 'memory',
    encryption: 'plaintext',
    listen: [`/memory/plain-${tag}-${name}`],
    timing: { requestTimeoutMs: 10_000, lookupTimeoutMs: 20_000 },
    ...o,
  });
  await n.start();
  return n;
}
