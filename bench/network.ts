/**
 * npm run bench:network — what the simulator's network model costs: the same workload on
 * libp2p's plain memory transport, on the model's transport at 0 ms (sim/network), and on the
 * model with the world's regions (delays of hundreds of ms: CPU is then the measure, wall time
 * is mostly waiting), each run in a fresh process, modes alternating.
 *
 * Two measurements per run: (1) chunks — one connection carries 100,000 small writes; CPU µs per
 * chunk delivered, after a warm-up pass (also with a 10 ms delay, the timer-queue path); (2) swarm — N nodes join
 * (8 at a time, each bootstrapping to 3 live ones, as SimSwarm does), 20 communities are
 * created, S searches run 4 at a time: nodes joined per second, searches per second, and the
 * CPU seconds of the whole process for each phase.
 * Usage: npm run bench:network [-- --nodes 200 --searches 100 --runs 3]
 */
import type { Stream } from '@libp2p/interface';
import pLimit from 'p-limit';
import { perturbed, synthetic } from '../sim/datasets.ts';
import { SimNetwork } from '../sim/network/network.ts';
import { worldRegions } from '../sim/network/regions.ts';
import { Rng } from '../sim/random.ts';
import { createHost } from '../src/net/libp2p.ts';
import { CidxNode } from '../src/node/node.ts';
import { benchArgs, wholeNumber } from './args.ts';
import { runChild } from './child.ts';

type Mode = 'memory' | 'model-0ms' | 'model-10ms' | 'model-world';
const MODES: Mode[] = ['memory', 'model-0ms', 'model-10ms', 'model-world'];

const { values: flags } = benchArgs('bench:network', {
  options: {
    nodes: { type: 'string', default: '200' },
    searches: { type: 'string', default: '100' },
    runs: { type: 'string', default: '3' },
    child: { type: 'string' },
  },
});
const NODES = wholeNumber('nodes', flags.nodes, 4);
const SEARCHES = wholeNumber('searches', flags.searches, 1);
const RUNS = wholeNumber('runs', flags.runs, 1);
const CHUNKS = 100_000;

const cpuS = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
};

function hostOptions(net: SimNetwork | undefined, name: string, run: string) {
  const base = {
    transport: 'memory' as const,
    encryption: 'plaintext' as const,
    listen: [`/memory/bench-${run}-${name}`],
    simulation: true,
  };
  if (net === undefined) return base;
  const n = net.join(name);
  return { ...base, transportFactory: n.transport, connectionGater: n.gater };
}

function network(mode: Mode): SimNetwork | undefined {
  if (mode === 'memory') return undefined;
  if (mode === 'model-world')
    return new SimNetwork({ seed: 1, regions: worldRegions(), accessMs: 10 });
  return new SimNetwork({ seed: 1, latencyMs: mode === 'model-10ms' ? 10 : 0 });
}

/** CPU µs per chunk: 100,000 writes of 100 bytes on one stream, read at the other end. */
async function chunks(mode: Mode): Promise<number> {
  const net = network(mode);
  const run = `${mode}-chunks-${process.pid}`;
  const a = await createHost(hostOptions(net, 'a', run));
  const b = await createHost(hostOptions(net, 'b', run));
  await a.start();
  await b.start();
  let got = 0;
  const all = new Promise<void>((resolve) => {
    void b.handle('/bench/chunks/1', async (stream: Stream) => {
      for await (const c of stream) got += c.byteLength;
      resolve();
    });
  });
  const stream = await a.dialProtocol(b.getMultiaddrs()[0] as never, '/bench/chunks/1');
  const msg = new Uint8Array(100).fill(1);
  const c0 = cpuS();
  for (let i = 0; i < CHUNKS; i++) {
    if (!stream.send(msg)) await stream.onDrain();
    // Let the event loop turn now and then, as real senders do, so writes are not all batched.
    if (i % 100 === 99) await new Promise((r) => setImmediate(r));
  }
  await stream.close();
  await all;
  const us = ((cpuS() - c0) * 1e6) / CHUNKS;
  if (got !== CHUNKS * 100) throw new Error(`received ${got} bytes`);
  await a.stop();
  await b.stop();
  net?.close();
  return us;
}

async function swarm(mode: Mode) {
  const net = network(mode);
  const run = `${mode}-swarm-${process.pid}`;
  const rng = new Rng(1, 'bench-network');
  const nodes: CidxNode[] = [];
  const limit = pLimit(8);
  let c0 = cpuS();
  let t0 = performance.now();
  await Promise.all(
    Array.from({ length: NODES }, (_, i) =>
      limit(async () => {
        const boot = rng.sample(nodes, 3).map((n) => n.addrs[0] as string);
        const node = await CidxNode.create({
          ...hostOptions(net, `n${i}`, run),
          bootstrap: boot,
          swarm: { index: { mode: 'lsh', n: 20, m: 1, seed: 'bench' } },
          timing: { lookupTimeoutMs: 60_000, requestTimeoutMs: 30_000 },
          limits: { inboxCapacity: 1000, inboxFilterCells: 1 << 14 },
        });
        await node.start();
        nodes.push(node);
      }),
    ),
  );
  const joinS = (performance.now() - t0) / 1000;
  const joinCpuS = cpuS() - c0;
  const communities = synthetic(
    'communities',
    { count: 20, size: 40, topics: 7, vocabulary: 200, matrix: false },
    1,
  );
  const users = perturbed('users', communities, SEARCHES, 0.7, 0.1, new Rng(1, 'users'));
  for (const [i, c] of communities.entries()) await (nodes[i] as CidxNode).create(c.profile);
  c0 = cpuS();
  t0 = performance.now();
  const ask = pLimit(4);
  let found = 0;
  await Promise.all(
    users.map((u, i) =>
      ask(async () => {
        const r = await (nodes[(i * 7) % nodes.length] as CidxNode).search(u.profile, { k: 3 });
        if (r.length > 0) found++;
      }),
    ),
  );
  const searchS = (performance.now() - t0) / 1000;
  const searchCpuS = cpuS() - c0;
  const chunksDelivered = net?.stats().chunks ?? 0;
  await Promise.allSettled(nodes.map((n) => n.stop()));
  net?.close();
  return {
    joinedPerS: NODES / joinS,
    joinCpuS,
    searchesPerS: SEARCHES / searchS,
    searchCpuS,
    found,
    chunksDelivered,
  };
}

type Row = { mode: Mode; usPerChunk: number } & Partial<Awaited<ReturnType<typeof swarm>>>;

if (flags.child !== undefined) {
  const mode = flags.child as Mode;
  if (mode !== 'model-world') await chunks(mode); // warm-up: the first pass measures the JIT more than the transport
  const row: Row = { mode, usPerChunk: mode === 'model-world' ? Number.NaN : await chunks(mode) };
  if (mode !== 'model-10ms') Object.assign(row, await swarm(mode));
  process.stdout.write(`${JSON.stringify(row)}\n`);
  process.exit(0);
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;
const rows: Row[] = [];
for (let r = 0; r < RUNS; r++) {
  for (const mode of MODES) {
    const args = ['--child', mode, '--nodes', String(NODES), '--searches', String(SEARCHES)];
    const row = runChild<Row>(import.meta.filename, args);
    process.stderr.write(`${JSON.stringify(row)}\n`);
    rows.push(row);
  }
}
console.log(`# bench:network — ${new Date().toISOString()}\n`);
console.log(
  `${NODES} nodes, 20 creates, ${SEARCHES} searches (4 at a time); ${CHUNKS} chunks of 100 bytes on one stream. Median of ${RUNS} runs, each in a fresh process.\n`,
);
console.log(
  '| transport | CPU µs / chunk | nodes joined / s | join CPU (s) | searches / s | search CPU (s) | searches with results |',
);
console.log('|---|---|---|---|---|---|---|');
for (const mode of MODES) {
  const of = rows.filter((x) => x.mode === mode);
  const m = (k: keyof Row) => median(of.map((x) => Number(x[k])));
  const f = (v: number, d: number) => (Number.isFinite(v) ? v.toFixed(d) : '—');
  console.log(
    `| ${mode} | ${f(m('usPerChunk'), 2)} | ${f(m('joinedPerS'), 2)} | ${f(m('joinCpuS'), 1)} | ${f(m('searchesPerS'), 2)} | ${f(m('searchCpuS'), 1)} | ${f(m('found'), 0)} / ${SEARCHES} |`,
  );
}
