/**
 * `cidx sim --netns` (root, iproute2, nftables; `npm run build` first): a scenario on node
 * processes, each in its own network namespace. `partition 50%` must cut the swarm in two —
 * a TCP handshake from one side to the other gets no answer — and `heal` join it again; a
 * holder frozen (SIGSTOP) while nodes search must not stop the searches resolving through the
 * other replicas. Nothing is left behind: processes, namespaces, directories.
 */
import { describe, expect, it } from 'vitest';
import { runScenario } from '../../sim/interpreter.ts';
import { CAPABILITIES, type SwarmMode } from '../../sim/modes.ts';
import { requireNetns } from '../../sim/netns/index.ts';
import { listNamespaces } from '../../sim/netns/namespaces.ts';
import { type ProcessPeer, ProcessSwarm } from '../../sim/processes/swarm.ts';
import { parseScenario } from '../../sim/scenario.ts';
import { handshake, stillAlive } from '../support/netns-probe.ts';

/** The host and TCP port of a node's first listen address. */
function tcpOf(p: ProcessPeer): { address: string; port: number } {
  const m = /^\/ip4\/([\d.]+)\/tcp\/(\d+)\//.exec(p.proc.ready.addrs[0] ?? '');
  if (m?.[1] === undefined || m[2] === undefined)
    throw new Error(`no TCP address: ${p.proc.ready.addrs}`);
  return { address: m[1], port: Number(m[2]) };
}

/** What a handshake from `from`'s namespace to each other live node gives. */
async function reach(from: ProcessPeer, others: ProcessPeer[]): Promise<string[]> {
  const netns = from.host?.netns ?? 'no namespace';
  return Promise.all(
    others.map((o) => {
      const { address, port } = tcpOf(o);
      // Long enough for an idle machine's handshake many times over; dropped packets never answer.
      return handshake(netns, address, port, 3_000);
    }),
  );
}

describe('a scenario with every node in its own network namespace', () => {
  it('partition 50% cuts the swarm in two, heal joins it; a frozen holder does not stop searches', async () => {
    requireNetns();
    const text = `
seed 9
index lsh n=8 m=1 seed=netns-mode
params k=3 replicas=3
timing request=3s lookup=6s republish=10m ttl=30m tombstone=1h
dataset c synthetic count=4 size=16 topics=2
at 0s join 6
at +0s create c from=0-1
at +0s freeze 1 which=holders
at +0s search c exact label=frozen
at +0s partition 50%
at +0s heal
at +0s republish
at +0s check findable
expect frozen.search.failed == 0
expect frozen.search.unresolved == 0
expect frozen.search.top1_agreement == 1
expect communities.findable == 1
expect nodes.alive == 6
`;
    const file = 'netns-mode.scenario';
    let swarm: ProcessSwarm | undefined;
    const mode: SwarmMode = {
      name: 'netns',
      can: CAPABILITIES.netns,
      create: (config, rng) => {
        swarm = new ProcessSwarm(config, rng, { netns: true });
        return swarm;
      },
    };
    const seen: Record<string, string[][]> = {};
    let pids: number[] = [];
    let frozen: number[] = [];
    const report = await runScenario(parseScenario(text, file), {
      file,
      swarm: mode,
      aroundCommand: async (command, run) => {
        await run();
        const live = (swarm?.alive() ?? []) as ProcessPeer[];
        pids = [...new Set([...pids, ...live.map((p) => p.proc.pid)])];
        if (command === 'freeze') frozen = live.filter((p) => p.frozen).map((p) => p.index);
        // From every node that is not frozen (a frozen one still completes handshakes: the
        // kernel answers for it), to every other.
        if (command === 'partition' || command === 'heal')
          seen[command] = await Promise.all(
            live.map((p) =>
              reach(
                p,
                live.filter((o) => o !== p),
              ),
            ),
          );
      },
    });
    expect(report.expects.filter((e) => !e.pass)).toEqual([]);
    expect(report.scenario.mode).toBe('netns');
    expect(frozen).toHaveLength(1);
    // Cut: each node reaches exactly the two others of its side, and gets no answer from the
    // three of the other side.
    for (const row of seen.partition ?? [[]]) {
      expect(row.filter((r) => r === 'connected')).toHaveLength(2);
      expect(row.filter((r) => r === 'timeout')).toHaveLength(3);
    }
    // Healed: everyone reaches everyone.
    expect(seen.heal?.flat()).toEqual(Array(30).fill('connected'));
    expect(pids).toHaveLength(6);
    expect(await stillAlive(pids)).toEqual([]);
    expect(listNamespaces(`cidx-${process.pid}-`)).toEqual([]);
  }, 300_000);
});
