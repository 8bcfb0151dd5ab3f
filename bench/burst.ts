/**
 * npm run bench:burst — does a swarm keep answering searches while 100 creates arrive at once?
 * An in-process swarm (memory transport) holds a first set of communities; one node searches
 * for them one after another, first on a quiet swarm, then while 100 creates are started at
 * the same moment from every node. Prints each phase's search latency (p50, p95, max),
 * failures and top-1 hits (each search's own community must come first), and how long the
 * burst of creates took.
 *
 * With --processes every node is its own `cidx node` process on 127.0.0.1 (TCP, Noise, yamux),
 * driven through JSON-RPC: the searching node then has an event loop of its own, as in a real
 * swarm, and only shares the machine's cores.
 *
 * Usage: npm run bench:burst [-- --nodes 30 --searches 20 --creates 100 --processes]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { call, type NodeProcess, spawnNode, stop } from '../test/support/process.ts';
import { startSwarm, stopAll, variedProfiles } from '../test/support/swarm.ts';
import { benchArgs } from './args.ts';

const { values } = benchArgs('bench:burst', {
  options: {
    nodes: { type: 'string', default: '30' },
    searches: { type: 'string', default: '20' },
    creates: { type: 'string', default: '100' },
    processes: { type: 'boolean', default: false },
  },
});
type Profile = ReturnType<typeof variedProfiles>[number];
const NODES = Number(values.nodes);
const SEARCHES = Number(values.searches);
const CREATES = Number(values.creates);
const swarm = { index: { mode: 'lsh' as const, n: 20, m: 1, seed: 'burst' } };

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))] ?? Number.NaN;
};

/** What the bench needs of a node, in one process or behind JSON-RPC. */
interface Peer {
  create(p: Profile): Promise<{ id: string }>;
  search(p: Profile): Promise<{ id: string }[]>;
}

async function inProcess(): Promise<{ peers: Peer[]; close: () => Promise<void> }> {
  const nodes = await startSwarm(NODES, { swarm });
  return {
    peers: nodes.map((n) => ({ create: (p) => n.create(p), search: (p) => n.search(p, { k: 5 }) })),
    close: () => stopAll(nodes),
  };
}

async function processes(): Promise<{ peers: Peer[]; close: () => Promise<void> }> {
  const dir = mkdtempSync(join(tmpdir(), 'cidx-burst-'));
  const flags = (i: number) => [
    ...['--rpc', '127.0.0.1:0', '--listen', '/ip4/127.0.0.1/tcp/0', '--data', join(dir, `${i}`)],
    ...['--lsh-n', '20', '--lsh-m', '1', '--lsh-seed', swarm.index.seed],
  ];
  const procs: NodeProcess[] = [await spawnNode(flags(0))];
  const boot = ['--bootstrap', procs[0]?.ready.addrs[0] as string];
  // A few at a time: every process starts a Node runtime, and the machine may have 2 cores.
  for (let i = 1; i < NODES; i += 4) {
    const batch = Array.from({ length: Math.min(4, NODES - i) }, (_, j) => i + j);
    procs.push(
      ...(await Promise.all(batch.map((j) => spawnNode([...flags(j), ...boot], {}, 60_000)))),
    );
  }
  return {
    peers: procs.map(({ ready: { rpc } }) => ({
      create: (p) => call(rpc, 'community.create', { profile: p }),
      search: async (p) => (await call(rpc, 'community.search', { profile: p, k: 5 })).results,
    })),
    close: async () => {
      await Promise.all(procs.map((p) => stop(p)));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

const { peers, close } = await (values.processes ? processes() : inProcess());
const at = (i: number) => peers[i % peers.length] as Peer;
const asker = at(NODES - 1);
const first = variedProfiles(SEARCHES, 40, 11, 8);
const ids: string[] = [];
for (const [i, p] of first.entries()) ids.push((await at(i).create(p)).id);

/** The searches for the first communities, one after another, until `until` resolves (at least once through). */
async function searchPhase(until?: Promise<unknown>) {
  let done = false;
  until?.then(() => {
    done = true;
  });
  const ms: number[] = [];
  let failed = 0;
  let top1 = 0;
  let rounds = 0;
  do {
    for (const [i, p] of first.entries()) {
      const t = performance.now();
      try {
        const [best] = await asker.search(p);
        ms.push(performance.now() - t);
        if (best?.id === ids[i]) top1++;
      } catch {
        failed++;
      }
    }
    rounds++;
  } while (until !== undefined && !done);
  return { ms, failed, top1, count: first.length * rounds };
}

const quiet = await searchPhase();
const burstProfiles = variedProfiles(CREATES, 40, 99, 8);
const t0 = performance.now();
let createsFailed = 0;
const creates = Promise.all(
  burstProfiles.map((p, i) =>
    at(i)
      .create(p)
      .catch(() => {
        createsFailed++;
      }),
  ),
);
const creating = creates.then(() => performance.now() - t0);
const busy = await searchPhase(creating);
const burstMs = await creating;
await close();

const row = (name: string, r: Awaited<ReturnType<typeof searchPhase>>) =>
  `| ${name} | ${r.count} | ${r.failed} | ${((100 * r.top1) / r.count).toFixed(0)}% | ${pct(r.ms, 50).toFixed(0)} | ${pct(r.ms, 95).toFixed(0)} | ${Math.max(...r.ms).toFixed(0)} |`;
console.log(`# bench:burst — ${new Date().toISOString()}\n`);
console.log(
  `${NODES} nodes (${values.processes ? 'one process each, TCP on 127.0.0.1, driven through JSON-RPC' : 'one process, memory transport'}), LSH n = 20, m = 1, 40-attribute profiles; one node searches for ${SEARCHES} communities, quiet and while ${CREATES} creates start at once from every node.\n`,
);
console.log('| phase | searches | failed | top-1 | p50 ms | p95 ms | max ms |');
console.log('|---|---|---|---|---|---|---|');
console.log(row('quiet', quiet));
console.log(row(`during ${CREATES} creates`, busy));
console.log(
  `\n${CREATES} creates at once took ${(burstMs / 1000).toFixed(1)} s in all; ${createsFailed} failed.`,
);
